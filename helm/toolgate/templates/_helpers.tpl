{{/* Chart name, shortened to the 63 characters Kubernetes allows in names. */}}
{{- define "toolgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: release-chart, unless the release name already contains the chart name. */}}
{{- define "toolgate.fullname" -}}
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

{{- define "toolgate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "toolgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "toolgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "toolgate.labels" -}}
helm.sh/chart: {{ include "toolgate.chart" . }}
{{ include "toolgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "toolgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "toolgate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "toolgate.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret holding DATABASE_URL and the keys: the operator's own, or the chart's. */}}
{{- define "toolgate.secretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else }}
{{- include "toolgate.fullname" . }}
{{- end }}
{{- end }}

{{/* Several replicas need one shared PostgreSQL: the embedded database is for a single process. */}}
{{- define "toolgate.validateSecrets" -}}
{{- if not .Values.secrets.existingSecret }}
{{- if not .Values.secrets.databaseUrl }}
{{- fail "secrets.databaseUrl is required (postgres://user:pass@host:5432/db), or set secrets.existingSecret" }}
{{- end }}
{{- if not .Values.secrets.encryptionKey }}
{{- fail "secrets.encryptionKey is required (openssl rand -base64 32), or set secrets.existingSecret" }}
{{- end }}
{{- end }}
{{- end }}

{{/* DATABASE_URL from the Secret; shared by the pods and the migration Job. */}}
{{- define "toolgate.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "toolgate.secretName" . }}
      key: database-url
{{- end }}

{{/*
"true" when config.sandbox.runtime is kubernetes (sandbox tools run in agent-sandbox SandboxClaims), else empty.
*/}}
{{- define "toolgate.kubernetesSandbox" -}}
{{- if eq (dig "sandbox" "runtime" "" .Values.config) "kubernetes" }}true{{ end }}
{{- end }}

{{/*
The namespace of the SandboxClaims: config.sandbox.kubernetes.namespace, else the release's (in-cluster, the
service's own namespace is what Toolgate uses when none is configured).
*/}}
{{- define "toolgate.sandboxNamespace" -}}
{{- dig "sandbox" "kubernetes" "namespace" .Release.Namespace .Values.config }}
{{- end }}
