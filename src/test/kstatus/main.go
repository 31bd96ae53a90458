// Command kstatus reads one Kubernetes object as JSON on stdin and prints kstatus' verdict on it
// (sigs.k8s.io/cli-utils/pkg/kstatus/status.Compute, what Flux, kpt and others use to judge a
// rollout) as one JSON line: {"status":"Current","message":"..."}.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

func main() {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading stdin: %v", err)
	}
	// Unstructured's own decoder keeps integers as int64, which kstatus' accessors expect.
	object := &unstructured.Unstructured{}
	if err := object.UnmarshalJSON(input); err != nil {
		fail("stdin is not a Kubernetes object in JSON: %v", err)
	}
	result, err := status.Compute(object)
	if err != nil {
		fail("kstatus: %v", err)
	}
	out, _ := json.Marshal(map[string]string{"status": result.Status.String(), "message": result.Message})
	fmt.Println(string(out))
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "kstatus: "+format+"\n", args...)
	os.Exit(2)
}
