// Command node is a multi-call binary holding the upstream entry points of the kubelet and
// kube-proxy (k8s.io/kubernetes cmd/kubelet and cmd/kube-proxy), so they share one compile and
// one link, and most of that compile with the control plane's binary (same module versions).
//
//	node kubelet [upstream flags...]
//	node kube-proxy [upstream flags...]
//	node version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
	_ "time/tzdata"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/component-base/version"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: node kubelet|kube-proxy|version [flags]")
		os.Exit(2)
	}
	component, args := os.Args[1], os.Args[2:]
	// client-go names the user agent (and so every managedFields manager and audit entry) after
	// argv[0]: make it the component's name, not this binary's.
	os.Args = append([]string{component}, args...)
	exitWhenParentGoes()

	switch component {
	case "kubelet":
		os.Exit(runCobra(kubelet.NewKubeletCommand(context.Background()), args))
	case "kube-proxy":
		os.Exit(runCobra(proxy.NewProxyCommand(), args))
	case "version":
		fmt.Println(version.Get().GitVersion)
	default:
		fmt.Fprintf(os.Stderr, "node: unknown component %q\n", component)
		os.Exit(2)
	}
}

func runCobra(cmd *cobra.Command, args []string) int {
	cmd.SetArgs(args)
	return cli.Run(cmd)
}

// exitWhenParentGoes makes the component unable to outlive the process that started it (as the
// control plane's binary does): when STEWARD_PARENT_PIPE=stdin, only the parent's death closes our
// stdin. We then ask ourselves to stop (SIGTERM) and exit hard if that takes longer than a few seconds.
func exitWhenParentGoes() {
	if os.Getenv("STEWARD_PARENT_PIPE") != "stdin" {
		return
	}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		fmt.Fprintln(os.Stderr, "node: parent is gone (stdin closed); stopping")
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(5 * time.Second)
		os.Exit(3)
	}()
}
