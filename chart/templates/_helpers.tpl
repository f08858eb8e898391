{{/*
Names. The spec fixes them (capstan-agent, capstan-ui, ServiceAccount capstan, ClusterRole
capstan-reader), so they do not carry the release name: one Capstan per cluster.
*/}}
{{- define "capstan.agentName" -}}capstan-agent{{- end -}}
{{- define "capstan.uiName" -}}capstan-ui{{- end -}}
{{- define "capstan.serviceAccountName" -}}capstan{{- end -}}
{{- /* Expert mode (expertMode.enabled; docs/expert-mode.md): the spec's capstan-expert-exec and capstan-expert. */ -}}
{{- define "capstan.expertName" -}}capstan-expert-exec{{- end -}}
{{- define "capstan.expertServiceAccountName" -}}capstan-expert{{- end -}}
{{- /* The audience of the agent's token for the expert pod; the expert pod accepts no other. */ -}}
{{- define "capstan.expertAudience" -}}capstan-expert{{- end -}}
{{- define "capstan.expertPort" -}}7690{{- end -}}

{{- /* Whether the expert pod runs self-scans: expert mode on, scanning on, and the chart's mode not
operator (which hard-disables self-scan). Empty when not. */}}
{{- define "capstan.selfScan" -}}
{{- if and .Values.expertMode.enabled .Values.security.scanning.enabled (ne .Values.security.scanning.mode "operator") }}true{{ end -}}
{{- end -}}

{{- define "capstan.scanCacheName" -}}{{ include "capstan.agentName" . }}-scan-cache{{- end -}}

{{- define "capstan.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object; pass a dict with "root" and "component". */}}
{{- define "capstan.labels" -}}
helm.sh/chart: {{ include "capstan.chart" .root }}
{{ include "capstan.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: capstan
{{- end -}}

{{/* What a Service, a PodDisruptionBudget and a Deployment select on; never changes after install. */}}
{{- define "capstan.selectorLabels" -}}
app.kubernetes.io/name: capstan
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* An image reference: repository@digest when pinned by digest, else repository:tag (tag defaults to appVersion). */}}
{{- define "capstan.image" -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository (.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/*
The expert pod's image: expertMode.image (default capstan-expert, the agent's image plus helm)
at expertMode.tag, else image.tag, else the chart's appVersion. By tag only: image.digest pins
the agent's image, whose digest the expert image does not share.
*/}}
{{- define "capstan.expertImage" -}}
{{- printf "%s:%s" .Values.expertMode.image (.Values.expertMode.tag | default .Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/*
The terminal sidecar's image: terminal.image.repository (default capstan-terminal, the agent's
image plus bash, coreutils, kubectl and helm) at terminal.image.digest when set, else
terminal.image.tag, else image.tag, else the chart's appVersion, as the expert image is tagged.
image.digest pins the agent's image only.
*/}}
{{- define "capstan.terminalImage" -}}
{{- $image := .Values.terminal.image -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $image.repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $image.repository ($image.tag | default .Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* true when the agent holds a ReadWriteOnce(-Pod) volume that a second pod cannot attach. */}}
{{- define "capstan.holdsExclusiveVolume" -}}
{{- if and .Values.persistence.enabled (ne .Values.persistence.accessMode "ReadWriteMany") -}}true{{- end -}}
{{- end -}}

{{/* updateStrategy: as set, else Recreate while a ReadWriteOnce PVC is held, RollingUpdate once it is not. */}}
{{- define "capstan.updateStrategy" -}}
{{- if .Values.updateStrategy -}}
{{- .Values.updateStrategy -}}
{{- else if include "capstan.holdsExclusiveVolume" . -}}
Recreate
{{- else -}}
RollingUpdate
{{- end -}}
{{- end -}}

{{/*
The TLS mode of the Ingress: none without TLS, else global.tlsProvider, else picked from the
ingress class (README.md, "TLS modes"):
  gce                        -> managed-certificate  (GKE ManagedCertificate)
  alb                        -> certificate-manager  (AWS Certificate Manager, found by host)
  azure-application-gateway  -> certificate-manager  (certificate on the Application Gateway)
  anything else or empty     -> cert-manager         (in-cluster cert-manager issuer)
*/}}
{{- define "capstan.tlsMode" -}}
{{- $class := .Values.global.ingressClassName -}}
{{- if not .Values.global.tls -}}
none
{{- else if .Values.global.tlsProvider -}}
{{- .Values.global.tlsProvider -}}
{{- else if eq $class "gce" -}}
managed-certificate
{{- else if or (eq $class "alb") (eq $class "azure-application-gateway") -}}
certificate-manager
{{- else -}}
cert-manager
{{- end -}}
{{- end -}}

{{/* The public origin, when there is a hostname. */}}
{{- define "capstan.publicUrl" -}}
{{- if .Values.global.hostname -}}
{{- printf "%s://%s" (ternary "https" "http" .Values.global.tls) .Values.global.hostname -}}
{{- end -}}
{{- end -}}

{{/* GKE's HTTP-to-HTTPS redirect (frontend-config.yaml): TLS on the gce ingress class. */}}
{{- define "capstan.gceHttpsRedirect" -}}
{{- if and (include "capstan.ingressEnabled" .) .Values.global.tls (eq .Values.global.ingressClassName "gce") -}}true{{- end -}}
{{- end -}}

{{/*
How many proxies in front of the dashboard append to X-Forwarded-For, for capstan ui to find
the client address when security.trustedProxyCidrs names none (with it, the dashboard walks
X-Forwarded-For past those instead): behind the Ingress, 1 (the controller appends its peer),
2 on gce (GKE's load balancer appends the client, then its own address); without an Ingress,
0 (the socket peer, as through kubectl port-forward).
*/}}
{{- define "capstan.uiForwardedHops" -}}
{{- if or .Values.security.trustedProxyCidrs (not (include "capstan.ingressEnabled" .)) -}}
0
{{- else if eq .Values.global.ingressClassName "gce" -}}
2
{{- else -}}
1
{{- end -}}
{{- end -}}

{{/*
true when this render can read the cluster (helm install, upgrade, --dry-run=server). helm
template, helm lint and GitOps tools (Argo CD, Flux) render without one: every lookup is empty,
so a Secret seeded by lookup would be generated anew on each render.
*/}}
{{- define "capstan.canLookup" -}}
{{- if lookup "v1" "Namespace" "" "kube-system" -}}true{{- end -}}
{{- end -}}

{{/* The Ingress exists only with a hostname and outside service-only mode. */}}
{{- define "capstan.ingressEnabled" -}}
{{- if and .Values.ingress.enabled .Values.global.hostname -}}true{{- end -}}
{{- end -}}

{{/*
Pod-level security context shared by both Deployments: non-root (the images' user 65532),
seccomp RuntimeDefault, and AppArmor per security.appArmorProfile (unconfined emits nothing)
through the securityContext.appArmorProfile field, whatever Kubernetes version helm assumes:
helm template without --kube-version assumes one older than 1.30 (1.20 in builds without
helm's version ldflags), and the annotation that used to stand in for the field is deprecated
from 1.30 on (the API server warns on every apply). Capstan needs Kubernetes 1.30 or later.
*/}}
{{- define "capstan.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
fsGroupChangePolicy: OnRootMismatch
seccompProfile:
  type: RuntimeDefault
{{- $profile := .Values.security.appArmorProfile }}
{{- if eq $profile "runtime/default" }}
appArmorProfile:
  type: RuntimeDefault
{{- else if hasPrefix "localhost/" $profile }}
appArmorProfile:
  type: Localhost
  localhostProfile: {{ trimPrefix "localhost/" $profile | quote }}
{{- end }}
{{- end -}}

{{/* Container-level hardening: no privilege escalation, every capability dropped, read-only root. */}}
{{- define "capstan.containerSecurityContext" -}}
allowPrivilegeEscalation: false
privileged: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop:
    - ALL
{{- end -}}

{{/*
Everything that must hold before anything renders, each refused with a message naming the
value. The schema checks each value alone; these check values against each other.
*/}}
{{- define "capstan.validate" -}}
{{- if not (include "capstan.canLookup" .) -}}
{{- $missing := list -}}
{{- range $value := list "encryptionKey" "adminPassword" "uiProxySecret" -}}
{{- if not (index $.Values.security $value) -}}{{- $missing = append $missing (printf "security.%s" $value) -}}{{- end -}}
{{- end -}}
{{- with $missing -}}
{{- fail (printf "rendering without a cluster to read the seeded Secrets back (helm template, helm lint, Argo CD, Flux) needs %s: each render would generate them anew, and a new encryption key leaves everything the agent sealed unreadable. Set them once and keep them (docs/install.md, \"GitOps and helm template\"), or install with helm install against the cluster" (join ", " .)) -}}
{{- end -}}
{{- end -}}
{{- if and (not .Values.ingress.enabled) (not .Values.security.trustedProxyCidrs) -}}
{{- fail "service-only mode (ingress.enabled=false) needs security.trustedProxyCidrs: set it to the CIDRs of whatever proxies to the agent (the dashboard pods, your own ingress), or the agent sees every person at the proxy's address and lockout and audit attribute everything to it" -}}
{{- end -}}
{{- if and (not .Values.rbac.clusterWide) .Values.rbac.customResourceGroups -}}
{{- fail "rbac.customResourceGroups needs rbac.clusterWide=true: a custom kind is watched cluster-wide, and a namespaced install must not read other namespaces' objects through it" -}}
{{- end -}}
{{- if and (not .Values.rbac.clusterWide) (empty .Values.tenantNamespaces) -}}
{{- fail "rbac.clusterWide=false needs tenantNamespaces: the workload reads become Roles in those namespaces, and with none the agent could read no workload at all" -}}
{{- end -}}
{{- if and (gt (int .Values.replicaCount) 1) (include "capstan.holdsExclusiveVolume" .) -}}
{{- fail (printf "replicaCount=%d needs persistence.accessMode=ReadWriteMany (or persistence.enabled=false): a %s volume attaches to one pod only" (int .Values.replicaCount) .Values.persistence.accessMode) -}}
{{- end -}}
{{- if and .Values.persistence.replication.enabled (not .Values.persistence.replication.bucket) -}}
{{- fail "persistence.replication.enabled=true needs persistence.replication.bucket" -}}
{{- end -}}
{{- if and .Values.audit.worm.enabled (not .Values.audit.worm.bucket) -}}
{{- fail "audit.worm.enabled=true needs audit.worm.bucket (a bucket with Object Lock and default retention)" -}}
{{- end -}}
{{- if include "capstan.ingressEnabled" . -}}
{{- $mode := include "capstan.tlsMode" . -}}
{{- $class := .Values.global.ingressClassName -}}
{{- if and (eq $mode "manual") (not .Values.global.tlsSecret) -}}
{{- fail "global.tlsProvider=manual needs global.tlsSecret: the name of an existing kubernetes.io/tls Secret in the release namespace" -}}
{{- end -}}
{{- if and (eq $mode "managed-certificate") (not (has $class (list "" "gce"))) -}}
{{- fail (printf "global.tlsProvider=managed-certificate works only with GKE's ingress (global.ingressClassName gce or empty), not %q" $class) -}}
{{- end -}}
{{- if and (eq $mode "certificate-manager") (not (has $class (list "alb" "azure-application-gateway"))) -}}
{{- fail (printf "global.tlsProvider=certificate-manager works only with global.ingressClassName alb (AWS Certificate Manager) or azure-application-gateway, not %q" $class) -}}
{{- end -}}
{{- if and (eq $mode "certificate-manager") (eq $class "azure-application-gateway") (not .Values.global.tlsCertificate) -}}
{{- fail "global.ingressClassName=azure-application-gateway with TLS needs global.tlsCertificate: the name of the SSL certificate installed on the Application Gateway" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Pull secrets for both pods: the values' own, plus capstan-registry when a license key builds it. */}}
{{- define "capstan.imagePullSecrets" -}}
{{- $secrets := list -}}
{{- range .Values.imagePullSecrets -}}
{{- $secrets = append $secrets . -}}
{{- end -}}
{{- if and .Values.license.key .Values.license.registry -}}
{{- $secrets = append $secrets (dict "name" "capstan-registry") -}}
{{- end -}}
{{- with $secrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
