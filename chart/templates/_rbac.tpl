{{/*
The agent's read rules, in two halves so rbac.clusterWide=false can move the namespaced half
into per-namespace Roles. The spec's list (spec §5: pods, logs, services, configmaps, events,
deployments, statefulsets, daemonsets, ingresses, jobs, cronjobs, nodes, namespaces) plus
every other resource the agent really lists and watches (runtime/kube/cluster-cache.ts,
runtime/kube/metrics-poller.ts); each extra one says why it is here.
*/}}

{{/* Cluster-scoped reads: kept in the ClusterRole in every mode. */}}
{{- define "capstan.rules.clusterScoped" -}}
- apiGroups: [""]
  # nodes, namespaces: spec §5. persistentvolumes: the PV informer (storage diagnosis, the
  # cluster model's volumes; spec §5 keeps PVs in the namespaced mode too).
  resources: ["nodes", "namespaces", "persistentvolumes"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["storage.k8s.io"]
  # The StorageClass informer: explains a PVC that names a missing or failing class.
  resources: ["storageclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.k8s.io"]
  # The IngressClass informer: explains an Ingress whose class does not exist.
  resources: ["ingressclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["apiextensions.k8s.io"]
  # spec §5: the namespaced mode's ClusterRole keeps CRDs (which custom kinds exist).
  resources: ["customresourcedefinitions"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["rbac.authorization.k8s.io"]
  # spec §5: "cluster RBAC metadata" is kept too; the cluster-scoped objects only.
  resources: ["clusterroles", "clusterrolebindings"]
  verbs: ["get", "list", "watch"]
{{- if .Values.metrics.kubeletScrape.enabled }}
{{- if .Values.metrics.kubeletScrape.viaProxy }}
- apiGroups: [""]
  # metrics.kubeletScrape.viaProxy: /api/v1/nodes/<node>/proxy/metrics/cadvisor. The only
  # setting that grants nodes/proxy (which reaches every kubelet API through the API server).
  resources: ["nodes/proxy"]
  verbs: ["get"]
{{- else }}
- apiGroups: [""]
  # The direct kubelet scrape: the kubelet authorizes /metrics/cadvisor as get on
  # nodes/metrics (what metrics-server holds), far narrower than nodes/proxy.
  resources: ["nodes/metrics"]
  verbs: ["get"]
{{- end }}
{{- end }}
{{- with .Values.rbac.customResourceGroups }}
- apiGroups: {{ toJson . }}
  # rbac.customResourceGroups: the custom kinds the dashboard browses, watched cluster-wide
  # (runtime/kube/custom-resources.ts); the schema refuses built-in groups, so no Secret or
  # workload read arrives through this rule.
  resources: ["*"]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- if .Values.security.scanning.enabled }}
- apiGroups: ["aquasecurity.github.io"]
  # security.scanning.enabled: the scanner operator's cluster-scoped reports.
  resources:
    - clustercompliancereports
    - clusterconfigauditreports
    - clusterinfraassessmentreports
    - clusterrbacassessmentreports
    - clustersbomreports
    - clustervulnerabilityreports
  verbs: ["get", "list", "watch"]
{{- end }}
{{- end -}}

{{/* Namespaced (workload) reads: in the ClusterRole when rbac.clusterWide, else in a Role per tenant namespace. */}}
{{- define "capstan.rules.namespaced" -}}
- apiGroups: [""]
  # spec §5: pods, services, configmaps, events. persistentvolumeclaims: the PVC informer
  # (pods waiting on claims). resourcequotas, limitranges: their informers explain pods and
  # replicas the admission refused.
  resources: ["pods", "services", "configmaps", "events", "persistentvolumeclaims", "resourcequotas", "limitranges"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  # spec §5 "logs": incident detail and get_logs read a log tail; a log is only ever a get.
  resources: ["pods/log"]
  verbs: ["get"]
- apiGroups: ["apps"]
  # spec §5: deployments, statefulsets, daemonsets. replicasets: the informer that ties a
  # pod to its Deployment through its ReplicaSet.
  resources: ["deployments", "statefulsets", "daemonsets", "replicasets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["discovery.k8s.io"]
  # The EndpointSlice informer: a Service whose endpoints are missing or not ready.
  resources: ["endpointslices"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["autoscaling"]
  # The HPA informer: a workload pinned by its autoscaler.
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["policy"]
  # The PDB informer: a disruption budget that blocks evictions.
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["metrics.k8s.io"]
  # The metrics poller lists pod CPU and memory from metrics-server once a minute.
  resources: ["pods"]
  verbs: ["get", "list"]
{{- if .Values.security.scanning.enabled }}
- apiGroups: ["aquasecurity.github.io"]
  # security.scanning.enabled: the scanner operator's per-namespace reports.
  resources:
    - configauditreports
    - exposedsecretreports
    - infraassessmentreports
    - rbacassessmentreports
    - sbomreports
    - vulnerabilityreports
  verbs: ["get", "list", "watch"]
{{- end }}
{{- end -}}

{{/* rbac.readSecrets: Secrets are read, never deleted (spec §5). watch: the Secret informer. */}}
{{- define "capstan.rules.readSecrets" -}}
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
{{- end -}}

{{/* rbac.allowWrites, namespaced part: exactly spec §5's write verbs. */}}
{{- define "capstan.rules.namespacedWrites" -}}
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create", "delete"]
- apiGroups: [""]
  # create: exec over SPDY; get: exec over WebSocket, which API servers before 1.35 authorize
  # as get (the upgrade is a GET request).
  resources: ["pods/exec"]
  verbs: ["create", "get"]
- apiGroups: [""]
  # Never delete (spec §5).
  resources: ["secrets"]
  verbs: ["create", "update", "patch"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["patch", "update"]
{{- end -}}

{{/* Namespaces the grants cover one by one: the tenant namespaces, or the Secret namespaces. */}}
{{- define "capstan.roleBinding" -}}
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  labels:
    {{- include "capstan.labels" (dict "root" .root "component" "rbac") | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ include "capstan.serviceAccountName" .root }}
    namespace: {{ .root.Release.Namespace }}
{{- end -}}

{{- define "capstan.clusterRoleBinding" -}}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .name }}
  labels:
    {{- include "capstan.labels" (dict "root" .root "component" "rbac") | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ include "capstan.serviceAccountName" .root }}
    namespace: {{ .root.Release.Namespace }}
{{- end -}}
