{{/*
The browser terminal's sidecars (docs/terminal.md): `terminal`, every session but an admin's
with rbac.allowWrites (the read-only account), and `terminal-admin`, those admins' sessions
(the writer account), rendered only with terminal.enabled and rbac.allowWrites. One
definition, so both get the same hardening; what separates them is the Unix user, the loopback
port, and their own volumes: key, home and /tmp. The admin's key and home are mounted into no
other sidecar, since a viewer's shell would otherwise read the key (and open an admin session
on loopback) or a write token in a session's kubeconfig.
*/}}

{{/* true when the admin sidecar is rendered: terminal.enabled and rbac.allowWrites. */}}
{{- define "capstan.terminalAdmin" -}}
{{- if and .Values.terminal.enabled .Values.rbac.allowWrites -}}true{{- end -}}
{{- end -}}

{{/*
One sidecar container. dict: root, name, port, user (runAsUser and runAsGroup), and the
volumes it mounts: key (at keyDir, read-only), home, tmp.
*/}}
{{- define "capstan.terminalContainer" -}}
{{- $root := .root -}}
- name: {{ .name }}
  {{- /* capstan-terminal: the agent's image plus bash, coreutils, kubectl and helm (docs/images.md). */}}
  image: {{ include "capstan.terminalImage" $root | quote }}
  imagePullPolicy: {{ $root.Values.terminal.image.pullPolicy }}
  command: ["/usr/local/bin/node", "/app/bin/capstan.js", "terminal"]
  env:
    - name: CAPSTAN_TERMINAL_LISTEN
      value: {{ printf "127.0.0.1:%d" (int .port) | quote }}
    - name: CAPSTAN_TERMINAL_KEY_FILE
      value: {{ printf "%s/key" .keyDir }}
    - name: CAPSTAN_TERMINAL_HOME
      value: /home/capstan
    - name: CAPSTAN_TERMINAL_IDLE_TIMEOUT_SECS
      value: {{ $root.Values.terminal.idleTimeoutSecs | quote }}
  resources:
    {{- toYaml $root.Values.terminal.resources | nindent 4 }}
  securityContext:
    allowPrivilegeEscalation: false
    privileged: false
    readOnlyRootFilesystem: {{ $root.Values.terminal.readOnlyRootFilesystem }}
    runAsNonRoot: true
    runAsUser: {{ .user }}
    runAsGroup: {{ .user }}
    capabilities:
      drop:
        - ALL
  volumeMounts:
    - name: {{ .home }}
      mountPath: /home/capstan
    - name: {{ .key }}
      mountPath: {{ .keyDir }}
      readOnly: true
    - name: {{ .tmp }}
      mountPath: /tmp
{{- end -}}
