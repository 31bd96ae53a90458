package main

// The WebApp API as a kubebuilder user would declare it for the fields the benchmark's WebApps use,
// and the objects Steward makes of one (io.steward.operator.webapp.DeploymentResource,
// ServiceResource and WebAppStatusCalculator, for a WebApp with no problem and not paused): the
// same labels, selector, ports, replicas, image, pod security settings, owner reference and status.

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var groupVersion = schema.GroupVersion{Group: "steward.io", Version: "v1alpha1"}

const (
	containerName = "app"
	portName      = "http"
	labelName     = "app.kubernetes.io/name"
	labelInstance = "app.kubernetes.io/instance"
	labelManaged  = "app.kubernetes.io/managed-by"
)

type WebAppSpec struct {
	Image                        string `json:"image"`
	Replicas                     *int32 `json:"replicas,omitempty"`
	Port                         *int32 `json:"port,omitempty"`
	ServiceType                  string `json:"serviceType,omitempty"`
	Paused                       bool   `json:"paused,omitempty"`
	RunAsNonRoot                 *bool  `json:"runAsNonRoot,omitempty"`
	RunAsUser                    *int64 `json:"runAsUser,omitempty"`
	AutomountServiceAccountToken *bool  `json:"automountServiceAccountToken,omitempty"`
}

type WebAppStatus struct {
	Phase              string             `json:"phase,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Replicas           *int32             `json:"replicas,omitempty"`
	ReadyReplicas      *int32             `json:"readyReplicas,omitempty"`
	AvailableReplicas  *int32             `json:"availableReplicas,omitempty"`
	Selector           string             `json:"selector,omitempty"`
	URL                string             `json:"url,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

type WebApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WebAppSpec   `json:"spec,omitempty"`
	Status            WebAppStatus `json:"status,omitempty"`
}

type WebAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebApp `json:"items"`
}

// Deep copies as controller-gen writes them.

func (in *WebAppSpec) DeepCopyInto(out *WebAppSpec) {
	*out = *in
	if in.Replicas != nil {
		out.Replicas = new(int32)
		*out.Replicas = *in.Replicas
	}
	if in.Port != nil {
		out.Port = new(int32)
		*out.Port = *in.Port
	}
	if in.RunAsNonRoot != nil {
		out.RunAsNonRoot = new(bool)
		*out.RunAsNonRoot = *in.RunAsNonRoot
	}
	if in.RunAsUser != nil {
		out.RunAsUser = new(int64)
		*out.RunAsUser = *in.RunAsUser
	}
	if in.AutomountServiceAccountToken != nil {
		out.AutomountServiceAccountToken = new(bool)
		*out.AutomountServiceAccountToken = *in.AutomountServiceAccountToken
	}
}

func (in *WebAppStatus) DeepCopyInto(out *WebAppStatus) {
	*out = *in
	for _, field := range []struct{ from, to **int32 }{{&in.Replicas, &out.Replicas},
		{&in.ReadyReplicas, &out.ReadyReplicas}, {&in.AvailableReplicas, &out.AvailableReplicas}} {
		if *field.from != nil {
			value := **field.from
			*field.to = &value
		}
	}
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

func (in *WebApp) DeepCopyInto(out *WebApp) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

func (in *WebApp) DeepCopy() *WebApp {
	if in == nil {
		return nil
	}
	out := new(WebApp)
	in.DeepCopyInto(out)
	return out
}

func (in *WebApp) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *WebAppList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(WebAppList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]WebApp, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

func addWebAppTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(groupVersion, &WebApp{}, &WebAppList{})
	metav1.AddToGroupVersion(scheme, groupVersion)
	return nil
}

func selectorLabels(app *WebApp) map[string]string {
	return map[string]string{labelName: "webapp", labelInstance: app.Name}
}

func allLabels(app *WebApp) map[string]string {
	labels := selectorLabels(app)
	labels[labelManaged] = "steward"
	return labels
}

func replicas(app *WebApp) int32 {
	if app.Spec.Replicas == nil {
		return 1
	}
	return *app.Spec.Replicas
}

func ownerReference(app *WebApp) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: groupVersion.String(), Kind: "WebApp", Name: app.Name, UID: app.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// desiredDeploymentSpec is what Steward's DeploymentResource.desired puts under spec.
func desiredDeploymentSpec(app *WebApp) appsv1.DeploymentSpec {
	no := false
	nonRoot := app.Spec.RunAsNonRoot == nil || *app.Spec.RunAsNonRoot
	automount := app.Spec.AutomountServiceAccountToken != nil && *app.Spec.AutomountServiceAccountToken
	container := corev1.Container{
		Name:  containerName,
		Image: app.Spec.Image,
		SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: &no,
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
	}
	if app.Spec.Port != nil {
		container.Ports = []corev1.ContainerPort{{Name: portName, ContainerPort: *app.Spec.Port, Protocol: corev1.ProtocolTCP}}
	}
	n := replicas(app)
	return appsv1.DeploymentSpec{
		Replicas: &n,
		Selector: &metav1.LabelSelector{MatchLabels: selectorLabels(app)},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: allLabels(app)},
			Spec: corev1.PodSpec{
				Containers:                   []corev1.Container{container},
				AutomountServiceAccountToken: &automount,
				SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &nonRoot, RunAsUser: app.Spec.RunAsUser,
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			},
		},
	}
}

// desiredServiceSpec is what Steward's ServiceResource.desired puts under spec (nil: no port, no Service).
func desiredServiceSpec(app *WebApp) *corev1.ServiceSpec {
	if app.Spec.Port == nil {
		return nil
	}
	serviceType := corev1.ServiceTypeClusterIP
	if app.Spec.ServiceType != "" {
		serviceType = corev1.ServiceType(app.Spec.ServiceType)
	}
	return &corev1.ServiceSpec{
		Type:     serviceType,
		Selector: selectorLabels(app),
		Ports: []corev1.ServicePort{{Name: portName, Protocol: corev1.ProtocolTCP, Port: *app.Spec.Port,
			TargetPort: intstr.FromString(portName)}},
	}
}

func objectMeta(app *WebApp) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace, Labels: allLabels(app),
		OwnerReferences: []metav1.OwnerReference{ownerReference(app)}}
}

// computeStatus is Steward's WebAppStatusCalculator for a WebApp with no problem and not paused:
// phase, observedGeneration, replica counts, selector, URL and the five conditions, each condition's
// lastTransitionTime kept unless its status flips (meta.SetStatusCondition does exactly that).
func computeStatus(app *WebApp, deployment *appsv1.Deployment, service *corev1.Service) WebAppStatus {
	status := WebAppStatus{}
	app.Status.DeepCopyInto(&status)
	generation := app.Generation
	desired := replicas(app)
	var rollout appsv1.DeploymentStatus
	if deployment != nil {
		rollout = deployment.Status
		if deployment.Spec.Replicas != nil {
			desired = *deployment.Spec.Replicas
		} else {
			desired = 1
		}
	}
	rolledOut := deployment != nil && rollout.ObservedGeneration >= deployment.Generation &&
		rollout.UpdatedReplicas == desired && rollout.Replicas == desired && rollout.AvailableReplicas >= desired
	replicasMessage := fmt.Sprintf("%d of %d replicas available", rollout.AvailableReplicas, desired)
	set := func(kind string, value bool, reason, message string) {
		condition := metav1.Condition{Type: kind, Status: metav1.ConditionFalse, Reason: reason, Message: message,
			ObservedGeneration: generation}
		if value {
			condition.Status = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&status.Conditions, condition)
	}
	set("Degraded", false, "AsExpected", "")
	switch {
	case rolledOut:
		set("Ready", true, "Available", replicasMessage)
		set("Progressing", false, "RolloutComplete", replicasMessage)
		set("Reconciling", false, "RolloutComplete", replicasMessage)
		status.Phase = "Ready"
	case deployment == nil:
		set("Ready", false, "Creating", "the Deployment does not exist yet")
		set("Progressing", true, "Creating", "creating the Deployment")
		set("Reconciling", true, "Creating", "creating the Deployment")
		status.Phase = "Pending"
	default:
		set("Ready", false, "ReplicasNotAvailable", replicasMessage)
		set("Progressing", true, "RollingOut", fmt.Sprintf("%d of %d replicas updated, %s", rollout.UpdatedReplicas,
			desired, replicasMessage))
		set("Reconciling", true, "RollingOut", replicasMessage)
		status.Phase = "Progressing"
	}
	set("Stalled", false, "AsExpected", "")
	status.ObservedGeneration = generation
	// Set even when 0, as Steward writes them.
	status.Replicas = &rollout.Replicas
	status.ReadyReplicas = &rollout.ReadyReplicas
	status.AvailableReplicas = &rollout.AvailableReplicas
	status.Selector = labelName + "=webapp," + labelInstance + "=" + app.Name
	status.URL = ""
	if service != nil && len(service.Spec.Ports) > 0 {
		status.URL = fmt.Sprintf("http://%s.%s.svc:%d", service.Name, service.Namespace, service.Spec.Ports[0].Port)
	}
	return status
}
