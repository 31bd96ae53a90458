package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// writerResult is the line the benchmark reads (io.steward.operator.bench.ContenderResults).
type writerResult struct {
	Concurrency int     `json:"concurrency"`
	WebApps     int     `json:"webApps"`
	Seconds     float64 `json:"seconds"`
	Failed      int64   `json:"failed"`
	CPUSeconds  float64 `json:"cpuSeconds"`
	MaxRSSBytes int64   `json:"maxRssBytes"`
	FirstError  string  `json:"firstError,omitempty"`
}

func runWriter(args []string) {
	flags := flag.NewFlagSet("writer", flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "kubeconfig file")
	namespace := flags.String("namespace", "", "namespace of the WebApps")
	concurrency := flags.Int("concurrency", 8, "goroutines sending")
	userAgent := flags.String("user-agent", "steward-contender-writer", "user agent")
	_ = flags.Parse(args)

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	config.UserAgent = *userAgent
	config.QPS = -1 // no client-side rate limiter
	config.Burst = 0
	dynamicClient, err := dynamic.NewForConfig(config) // the CRD: JSON only
	if err != nil {
		fail("client: %v", err)
	}
	proto := *config
	proto.ContentType = runtime.ContentTypeProtobuf
	proto.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	clientset, err := kubernetes.NewForConfig(&proto)
	if err != nil {
		fail("client: %v", err)
	}
	ctx := context.Background()
	webApps := dynamicClient.Resource(groupVersion.WithResource("webapps")).Namespace(*namespace)
	list, err := webApps.List(ctx, metav1.ListOptions{})
	if err != nil {
		fail("listing WebApps: %v", err)
	}
	apps := make([]*WebApp, 0, len(list.Items))
	for i := range list.Items {
		app := &WebApp{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, app); err != nil {
			fail("decoding WebApp: %v", err)
		}
		apps = append(apps, app)
	}

	var next, failed atomic.Int64
	var firstError atomic.Value
	failure := func(err error) {
		failed.Add(1)
		firstError.CompareAndSwap(nil, err.Error())
	}
	var wg sync.WaitGroup
	start := time.Now()
	for g := 0; g < *concurrency; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(apps)); i = next.Add(1) - 1 {
				app := apps[i]
				deployment, err := clientset.AppsV1().Deployments(app.Namespace).Create(ctx, &appsv1.Deployment{
					ObjectMeta: objectMeta(app), Spec: desiredDeploymentSpec(app)}, metav1.CreateOptions{})
				if err != nil {
					failure(err)
					continue
				}
				var service *corev1.Service
				if spec := desiredServiceSpec(app); spec != nil {
					service, err = clientset.CoreV1().Services(app.Namespace).Create(ctx, &corev1.Service{
						ObjectMeta: objectMeta(app), Spec: *spec}, metav1.CreateOptions{})
					if err != nil {
						failure(err)
						continue
					}
				}
				// Steward's status write: one merge patch with the resourceVersion it was computed from.
				patch, _ := json.Marshal(map[string]interface{}{
					"metadata": map[string]string{"resourceVersion": app.ResourceVersion},
					"status":   computeStatus(app, deployment, service),
				})
				if _, err := webApps.Patch(ctx, app.Name, types.MergePatchType, patch, metav1.PatchOptions{},
					"status"); err != nil {
					failure(err)
				}
			}
		}()
	}
	wg.Wait()
	seconds := time.Since(start).Seconds()
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	result := writerResult{Concurrency: *concurrency, WebApps: len(apps), Seconds: seconds, Failed: failed.Load(),
		CPUSeconds: float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9, MaxRSSBytes: usage.Maxrss * 1024}
	if e, ok := firstError.Load().(string); ok {
		result.FirstError = e
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
