{{/* The name of the chart's objects: the release's, prefixed once. */}}
{{- define "voxkit.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "voxkit.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The labels that select one role's pods: call with (list . "worker"). */}}
{{- define "voxkit.selector" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ $.Chart.Name }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{/* The container's common parts: image, secrets, probes, security. */}}
{{- define "voxkit.container" -}}
image: {{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
lifecycle:
  # Out of the Services' endpoints before SIGTERM starts the drain.
  preStop: {exec: {command: ["sleep", "5"]}}
startupProbe:
  httpGet: {path: {{ .Values.probes.startup.path }}, port: http}
  periodSeconds: {{ .Values.probes.startup.periodSeconds }}
  failureThreshold: {{ .Values.probes.startup.failureThreshold }}
livenessProbe:
  httpGet: {path: {{ .Values.probes.liveness.path }}, port: http}
  periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
readinessProbe:
  httpGet: {path: {{ .Values.probes.readiness.path }}, port: http}
  periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
securityContext:
  {{- toYaml .Values.securityContext | nindent 2 }}
{{- end -}}

{{/* The store's URL and first password, from the Secret. */}}
{{- define "voxkit.env" -}}
- name: VOXKIT_STORE
  valueFrom: {secretKeyRef: {name: {{ .Values.secretName }}, key: store}}
- name: VOXKIT_INITIAL_PASSWORD
  valueFrom: {secretKeyRef: {name: {{ .Values.secretName }}, key: initial-password}}
{{- end -}}
