// Command probe is what the local node's test pods run:
//
//	probe serve [ADDR]   answers GET /healthz (200, or 503 after GET /fail) on ADDR (:8080)
//	probe whoami         calls the API server with in-cluster configuration, as client libraries do:
//	                     https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, the projected
//	                     token and CA under /var/run/secrets/kubernetes.io/serviceaccount; reads
//	                     its own Pod ($POD_NAME in the token's namespace) and a SelfSubjectReview
//	                     and prints what it got; exits non-zero when a call fails
//	probe alloc MIB      allocates and touches MIB MiB, then sleeps (a memory peak to read)
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

const sa = "/var/run/secrets/kubernetes.io/serviceaccount/"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: probe serve [ADDR] | whoami | alloc MIB")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		addr := ":8080"
		if len(os.Args) > 2 {
			addr = os.Args[2]
		}
		serve(addr)
	case "whoami":
		if err := whoami(); err != nil {
			fmt.Fprintln(os.Stderr, "probe:", err)
			os.Exit(1)
		}
	case "alloc":
		mib, _ := strconv.Atoi(os.Args[2])
		b := make([]byte, mib<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Printf("allocated %d MiB\n", mib)
		for {
			time.Sleep(time.Hour)
			b[0]++
		}
	default:
		fmt.Fprintf(os.Stderr, "probe: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

func serve(addr string) {
	var failing atomic.Bool
	var probes atomic.Int64
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		n := probes.Add(1)
		fmt.Printf("%s probe %d from %s (%s)\n", time.Now().Format(time.RFC3339), n, r.RemoteAddr, r.UserAgent())
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	http.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		failing.Store(true)
		fmt.Fprintln(w, "failing from now on")
	})
	fmt.Println("serving on", addr)
	if err := http.ListenAndServe(addr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "probe:", err)
		os.Exit(1)
	}
}

func whoami() error {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return fmt.Errorf("KUBERNETES_SERVICE_HOST/PORT are not set")
	}
	token, err := os.ReadFile(sa + "token")
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(sa + "ca.crt")
	if err != nil {
		return err
	}
	namespace, err := os.ReadFile(sa + "namespace")
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("no certificate in %sca.crt", sa)
	}
	client := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	base := "https://" + net.JoinHostPort(host, port)
	fmt.Println("API server:", base)
	call := func(method, path string, body []byte) error {
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+string(bytes.TrimSpace(token)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		fmt.Printf("%s %s: %s\n%s\n", method, path, resp.Status, data)
		if resp.StatusCode >= 300 {
			return fmt.Errorf("%s %s: %s", method, path, resp.Status)
		}
		return nil
	}
	if err := call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		[]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)); err != nil {
		return err
	}
	return call("GET", "/api/v1/namespaces/"+string(namespace)+"/pods/"+os.Getenv("POD_NAME"), nil)
}
