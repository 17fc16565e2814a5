{{/* Names, labels and the image, shared by every template. */}}

{{- define "vtenant.labels" -}}
app.kubernetes.io/name: vtenant
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* Selector labels of one component: include "vtenant.selector" (list . "operator") */}}
{{- define "vtenant.selector" -}}
app.kubernetes.io/name: vtenant
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{- define "vtenant.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* Name of a component's objects: vtenant-operator, vtenant-scheduler. */}}
{{- define "vtenant.name" -}}
{{ printf "vtenant-%s" (index . 1) }}
{{- end }}

{{- define "vtenant.podSpecCommon" -}}
serviceAccountName: {{ include "vtenant.name" . }}
{{- with (index . 0).Values.imagePullSecrets }}
imagePullSecrets: {{ toYaml . | nindent 2 }}
{{- end }}
securityContext: {{ toYaml (index . 0).Values.podSecurityContext | nindent 2 }}
{{- end }}

{{- define "vtenant.containerSecurity" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities: {drop: [ALL]}
{{- end }}

{{- define "vtenant.probes" -}}
livenessProbe:
  httpGet: {path: /healthz, port: metrics}
  periodSeconds: 10
readinessProbe:
  httpGet: {path: /readyz, port: metrics}
  periodSeconds: 5
{{- end }}
