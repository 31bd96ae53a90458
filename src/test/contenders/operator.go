package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// WebAppReconciler is the controller a kubebuilder user writes for WebApps: reads through the
// manager's cached client, CreateOrUpdate of the Deployment and the Service with a controller
// owner reference, and one status patch only when the status changed.
type WebAppReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

func (r *WebAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &WebApp{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	deployment := &appsv1.Deployment{ObjectMeta: objectMetaName(app)}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, deployment, func() error {
		desired := desiredDeploymentSpec(app)
		if deployment.CreationTimestamp.IsZero() {
			deployment.Spec = desired
		} else { // the fields the WebApp decides; the rest keeps the server's defaults
			deployment.Spec.Replicas = desired.Replicas
			deployment.Spec.Template.Labels = desired.Template.Labels
			deployment.Spec.Template.Spec.Containers[0].Image = desired.Template.Spec.Containers[0].Image
			deployment.Spec.Template.Spec.Containers[0].Ports = desired.Template.Spec.Containers[0].Ports
		}
		deployment.Labels = allLabels(app)
		return controllerutil.SetControllerReference(app, deployment, r.Scheme)
	}); err != nil {
		return ctrl.Result{}, err
	}
	var service *corev1.Service
	if desired := desiredServiceSpec(app); desired != nil {
		service = &corev1.Service{ObjectMeta: objectMetaName(app)}
		if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, service, func() error {
			if service.CreationTimestamp.IsZero() {
				service.Spec = *desired
			} else {
				service.Spec.Selector = desired.Selector
				service.Spec.Ports = desired.Ports
			}
			service.Labels = allLabels(app)
			return controllerutil.SetControllerReference(app, service, r.Scheme)
		}); err != nil {
			return ctrl.Result{}, err
		}
	}
	status := computeStatus(app, deployment, service)
	if equality.Semantic.DeepEqual(app.Status, status) {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(app.DeepCopy())
	app.Status = status
	return ctrl.Result{}, r.Status().Patch(ctx, app, patch)
}

func objectMetaName(app *WebApp) (meta metav1.ObjectMeta) {
	meta.Name, meta.Namespace = app.Name, app.Namespace
	return meta
}

func runOperator(args []string) {
	flags := flag.NewFlagSet("operator", flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "kubeconfig file")
	workers := flags.Int("workers", 8, "MaxConcurrentReconciles")
	userAgent := flags.String("user-agent", "steward-contender-cr", "user agent")
	leaseNamespace := flags.String("lease-namespace", "default", "namespace of the leader election Lease")
	leaseName := flags.String("leader-election-id", "contender-cr.steward.io", "name of the leader election Lease")
	_ = flags.Parse(args)
	ctrl.SetLogger(zap.New())

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail("kubeconfig: %v", err)
	}
	config.UserAgent = *userAgent
	config.QPS = -1 // what ctrl.GetConfig does: no client-side limiter, API priority and fairness instead
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		fail("scheme: %v", err)
	}
	if err := addWebAppTypes(scheme); err != nil {
		fail("scheme: %v", err)
	}
	mgr, err := ctrl.NewManager(config, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        *leaseName,
		LeaderElectionNamespace: *leaseNamespace,
		// What kubebuilder's scaffold suggests when the binary ends with the manager: the next one leads at once.
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		fail("manager: %v", err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&WebApp{}).Owns(&appsv1.Deployment{}).Owns(&corev1.Service{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(&WebAppReconciler{Client: mgr.GetClient(), Scheme: scheme}); err != nil {
		fail("controller: %v", err)
	}
	// Started with the leader's runnables (the controller among them) once the Lease is won: the
	// benchmark waits for this line, as it waits for Steward's leadership.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		fmt.Fprintln(os.Stderr, "contenders: leading")
		<-ctx.Done()
		return nil
	})); err != nil {
		fail("manager: %v", err)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fail("manager: %v", err)
	}
}
