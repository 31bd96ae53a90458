// Command contenders holds the two Go contenders of Steward's benchmark (src/test/java/.../bench):
//
//	contenders writer   --kubeconfig K --namespace NS --concurrency C
//	    the physical limit: client-go with protobuf for built-in types and no client-side rate
//	    limiter sends exactly Steward's writes for each WebApp already in NS (create the Deployment,
//	    create the Service, merge-patch the status) from C goroutines, and prints one JSON line.
//	contenders operator --kubeconfig K --workers 8
//	    a controller-runtime operator as a kubebuilder user writes it (see operator.go).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "writer":
		runWriter(os.Args[2:])
	case "operator":
		runOperator(os.Args[2:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: contenders writer|operator --kubeconfig FILE [flags]")
	os.Exit(2)
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "contenders: "+format+"\n", args...)
	os.Exit(1)
}
