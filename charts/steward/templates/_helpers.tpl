{{/* Name of the chart, or nameOverride. */}}
{{- define "steward.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified name: fullnameOverride, else the release name (if it contains the chart name), else release-chart. */}}
{{- define "steward.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "steward.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that select the operator pods. Never change them: a Deployment's selector is immutable. */}}
{{- define "steward.selectorLabels" -}}
app.kubernetes.io/name: {{ include "steward.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{- define "steward.labels" -}}
helm.sh/chart: {{ include "steward.chart" . }}
{{ include "steward.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: steward
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "steward.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "steward.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "steward.leaseName" -}}
{{- default (printf "%s-leader" (include "steward.fullname" .)) .Values.leaderElection.leaseName }}
{{- end }}

{{- define "steward.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
What Steward may do with the WebApps and their Deployments, Services and Events, and nothing else
(no Secrets, no wildcards). Used by the ClusterRole, or by each watched namespace's Role.
*/}}
{{- define "steward.managerRules" -}}
- apiGroups: [steward.io]
  resources: [webapps]
  {{- if .Values.sharding.enabled }}
  # patch: sharded mode labels each WebApp with its bucket (metadata.labels only).
  verbs: [get, list, watch, patch]
  {{- else }}
  verbs: [get, list, watch]
  {{- end }}
- apiGroups: [steward.io]
  resources: [webapps/status]
  verbs: [patch]
# Owner references with blockOwnerDeletion=true need this where OwnerReferencesPermissionEnforcement is on.
- apiGroups: [steward.io]
  resources: [webapps/finalizers]
  verbs: [update]
# Patch, never update (Steward writes only the fields it owns); never delete: the garbage collector removes a WebApp's Deployment with the WebApp.
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list, watch, create, patch]
# delete: Steward removes a WebApp's Service when spec.port is removed.
- apiGroups: [""]
  resources: [services]
  verbs: [get, list, watch, create, patch, delete]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end }}

{{/* What a WebApp's viewer may do: read WebApps, their status and their scale. */}}
{{- define "steward.webAppReadRules" -}}
- apiGroups: [steward.io]
  resources: [webapps, webapps/status, webapps/scale]
  verbs: [get, list, watch]
{{- end }}

{{/* What a WebApp's editor may do beyond reading: everything but writing the status, which is Steward's. */}}
{{- define "steward.webAppWriteRules" -}}
- apiGroups: [steward.io]
  resources: [webapps]
  verbs: [create, update, patch, delete, deletecollection]
- apiGroups: [steward.io]
  resources: [webapps/scale]
  verbs: [update, patch]
{{- end }}

{{/* Cross-field checks that a JSON schema cannot phrase clearly. */}}
{{- define "steward.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail (printf "replicaCount is %d but leaderElection.enabled is false: every replica would reconcile at once. Enable leader election or set replicaCount: 1." (int .Values.replicaCount)) }}
{{- end }}
{{- end }}

{{/* Labels of the `helm test` pod: not the operator's selector labels, so no Service or budget selects it. */}}
{{- define "steward.testSelectorLabels" -}}
app.kubernetes.io/name: {{ include "steward.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: test
{{- end }}
