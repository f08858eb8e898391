// The dashboard shell: one query client, the session gate (401 anywhere → sign-in), the
// navigation, and a stable URL for every view (the copilot's citations will link here).
import { MutationCache, QueryCache, QueryClient, QueryClientProvider, useMutation, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { ApiError } from './api/client';
import { isMeQuery, me as meQuery, recheckSession, signInKey, signOut, type Me } from './api/queries/session';
import { ErrorView, Loading } from './components/states';
import { SignIn } from './screens/sign-in';
import { Overview } from './screens/overview';
import { Explore } from './screens/explore';
import { AdminObservability } from './screens/admin-observability';
import { IncidentList } from './screens/incidents';
import { IncidentStory } from './screens/incident-story';
import { LogsScreen } from './screens/logs';
import { CommandPalette } from './components/command-palette';
import { ResourcesScreen } from './screens/resources';
import { TasksTray } from './components/tasks-tray';
import { CustomKindsScreen, CustomObjectScreen, CustomObjectsScreen } from './screens/custom-resources';
import { ResourceDetailScreen } from './screens/resource-detail';
import { KINDS, type Kind } from './api/queries/resources';

const isKind = (k: string): k is Kind => KINDS.some((x) => x.kind === k);
import { NamespaceList, NamespacePods } from './screens/namespaces';
import { ChatDock } from './copilot/chat-dock';
import { useChat } from './copilot/use-chat';

// Screens most visits never open load on demand, keeping the first load small.
const TerminalScreen = lazy(() => import('./screens/terminal').then((m) => ({ default: m.TerminalScreen })));
const HistoryScreen = lazy(() => import('./screens/history').then((m) => ({ default: m.HistoryScreen })));
const Apps = lazy(() => import('./screens/apps').then((m) => ({ default: m.Apps })));
const AppDetail = lazy(() => import('./screens/apps').then((m) => ({ default: m.AppDetail })));
const NewApp = lazy(() => import('./screens/app-editor').then((m) => ({ default: m.NewApp })));
const SecurityScreen = lazy(() => import('./screens/security').then((m) => ({ default: m.SecurityScreen })));
const EntityView = lazy(() => import('./screens/entity').then((m) => ({ default: m.EntityView })));
const Consent = lazy(() => import('./screens/consent').then((m) => ({ default: m.Consent })));
const Account = lazy(() => import('./screens/account').then((m) => ({ default: m.Account })));
const AdminUsers = lazy(() => import('./screens/admin').then((m) => ({ default: m.AdminUsers })));
const AdminAccess = lazy(() => import('./screens/admin').then((m) => ({ default: m.AdminAccess })));
const AdminAudit = lazy(() => import('./screens/audit').then((m) => ({ default: m.AdminAudit })));
const AuditEventView = lazy(() => import('./screens/audit').then((m) => ({ default: m.AuditEventView })));
const AnswerList = lazy(() => import('./screens/copilot-answers').then((m) => ({ default: m.AnswerList })));
const StoredAnswerView = lazy(() => import('./screens/copilot-answers').then((m) => ({ default: m.StoredAnswerView })));
const AdminAi = lazy(() => import('./screens/admin-ai').then((m) => ({ default: m.AdminAi })));
const AdminExpertMode = lazy(() => import('./screens/admin').then((m) => ({ default: m.AdminExpertMode })));
const HelmScreen = lazy(() => import('./screens/helm').then((m) => ({ default: m.HelmScreen })));
const HelmReleaseScreen = lazy(() => import('./screens/helm-release').then((m) => ({ default: m.HelmReleaseScreen })));
const HelmInstallScreen = lazy(() => import('./screens/helm-install').then((m) => ({ default: m.HelmInstallScreen })));
const AdminLicense = lazy(() => import('./screens/admin-license').then((m) => ({ default: m.AdminLicense })));
const AdminSso = lazy(() => import('./screens/admin-sso').then((m) => ({ default: m.AdminSso })));
const AiContextList = lazy(() => import('./screens/ai-context').then((m) => ({ default: m.AiContextList })));
const AiContextDocumentView = lazy(() => import('./screens/ai-context').then((m) => ({ default: m.AiContextDocumentView })));

const client: QueryClient = new QueryClient({
  defaultOptions: { queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2 } },
  // A session that expired while idle: every query then answers 401, and the gate shows sign-in.
  queryCache: new QueryCache({
    onError: (error, query) => {
      if (error instanceof ApiError && error.status === 401 && !isMeQuery(query.queryKey)) void recheckSession(client);
    },
  }),
  // A write can end the session too (the fifth wrong code when turning the second factor off).
  mutationCache: new MutationCache({
    onError: (error, _variables, _context, mutation) => {
      if (error instanceof ApiError && error.status === 401 && mutation.options.mutationKey !== signInKey) void recheckSession(client);
    },
  }),
});

type Theme = 'light' | 'dark';

function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem('capstan-theme') as Theme | null) ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('capstan-theme', theme);
  }, [theme]);
  return [theme, () => setTheme(theme === 'dark' ? 'light' : 'dark')];
}

/** `section`: the path prefix that marks it current, when wider than `href` (every kind under /resources). */
function NavLink({ href, children, section = href }: { href: string; children: string; section?: string }) {
  const [location] = useLocation();
  const current = location === href || location.startsWith(`${section}/`);
  return (
    <Link href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/**
 * A SAML session signs out through single logout (docs/sso.md "Single logout"): a full
 * navigation, since the agent ends the session and answers with redirects to the IdP and back.
 */
function samlSignOut() {
  window.location.assign('/api/agent/auth/saml/logout?return_to=%2F');
}

/** The main screens, as the navigation and the command palette list them. */
function screensFor(me: Me): { label: string; href: string; section?: string }[] {
  const admin = me.role === 'admin';
  return [
    { label: 'Overview', href: '/overview' },
    { label: 'Incidents', href: '/incidents' },
    { label: 'Namespaces', href: '/namespaces' },
    { label: 'Resources', href: '/resources/deployments', section: '/resources' },
    { label: 'Security', href: '/security' },
    { label: 'History', href: '/history' },
    { label: 'Explore', href: '/explore' },
    { label: 'Terminal', href: '/terminal' },
    { label: 'Helm', href: '/helm' },
    { label: 'Applications', href: '/apps' },
    { label: 'Copilot answers', href: '/copilot/answers' },
    { label: 'AI Context', href: '/ai/context' },
    ...(admin
      ? [
          { label: 'Users', href: '/admin/users' },
          { label: 'Access control', href: '/admin/access' },
          { label: 'Audit', href: '/admin/audit' },
          { label: 'AI', href: '/admin/ai' },
          { label: 'SSO', href: '/admin/sso' },
          { label: 'License', href: '/admin/license' },
          { label: 'Expert mode', href: '/admin/expert-mode' },
          { label: 'Observability', href: '/admin/observability' },
        ]
      : []),
  ];
}

function Shell({ me }: { me: Me }) {
  const [theme, toggleTheme] = useTheme();
  const leave = useMutation(signOut(client));
  const chat = useChat();
  const [docked, setDocked] = useState(false);
  const [palette, setPalette] = useState<string | null>(null);
  return (
    <div className={docked ? 'shell docked' : 'shell'}>
      <a className="skip" href="#main">Skip to content</a>
      <CommandPalette screens={[...screensFor(me), { label: 'Account', href: '/account' }]} open={palette} setOpen={setPalette} />
      <header>
        <span className="brand">Capstan</span>
        <nav aria-label="Main">
          {screensFor(me).map((screen) => (
            <NavLink key={screen.href} href={screen.href} section={screen.section}>
              {screen.label}
            </NavLink>
          ))}
        </nav>
        <div className="who">
          <button type="button" onClick={() => setPalette('')} aria-keyshortcuts="Control+K Meta+K">
            Go to… <kbd>Ctrl K</kbd>
          </button>
          {me.role === 'admin' ? <TasksTray /> : null}
          <button type="button" onClick={() => setDocked(!docked)} aria-expanded={docked} aria-controls="copilot-dock">
            {docked ? 'Hide the copilot' : 'Ask the copilot'}
          </button>
          <button type="button" onClick={toggleTheme} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`}>
            {theme === 'dark' ? '☀' : '☾'}
          </button>
          <Link href="/account">{me.username} ({me.role})</Link>
          <button type="button" onClick={() => (me.auth_method === 'saml' ? samlSignOut() : leave.mutate())} disabled={leave.isPending}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading what="screen" />}>
          <Switch>
            <Route path="/"><Redirect to="/overview" /></Route>
            {/* Where a redirect sign-in refused by the agent lands; once signed in there is nothing to show there. */}
            <Route path="/sign-in"><Redirect to="/overview" /></Route>
            <Route path="/overview" component={Overview} />
            <Route path="/incidents" component={IncidentList} />
            <Route path="/incidents/:namespace/:pod">{(p) => <IncidentStory namespace={p.namespace} pod={p.pod} />}</Route>
            <Route path="/namespaces" component={NamespaceList} />
            <Route path="/namespaces/:namespace">{(p) => <NamespacePods namespace={p.namespace} />}</Route>
            <Route path="/namespaces/:namespace/pods/:pod">{(p) => <IncidentStory namespace={p.namespace} pod={p.pod} />}</Route>
            <Route path="/namespaces/:namespace/pods/:pod/logs">{(p) => <LogsScreen namespace={p.namespace} pod={p.pod} />}</Route>
            <Route path="/resources/:kind">{(p) => (isKind(p.kind) ? <ResourcesScreen kind={p.kind} /> : <h1>Not found</h1>)}</Route>
            <Route path="/resources/:kind/:name">{(p) => (isKind(p.kind) ? <ResourceDetailScreen kind={p.kind} name={decodeURIComponent(p.name)} /> : <h1>Not found</h1>)}</Route>
            <Route path="/custom-resources" component={CustomKindsScreen} />
            <Route path="/custom-resources/:group/:plural">{(p) => <CustomObjectsScreen group={p.group} plural={p.plural} />}</Route>
            <Route path="/custom-resources/:group/:plural/:name">{(p) => <CustomObjectScreen group={p.group} plural={p.plural} name={decodeURIComponent(p.name)} />}</Route>
            <Route path="/security" component={SecurityScreen} />
            <Route path="/history" component={HistoryScreen} />
            <Route path="/explore" component={Explore} />
            <Route path="/terminal" component={TerminalScreen} />
            <Route path="/helm" component={HelmScreen} />
            <Route path="/helm/install" component={HelmInstallScreen} />
            <Route path="/helm/releases/:namespace/:name">{(p) => <HelmReleaseScreen namespace={decodeURIComponent(p.namespace)} name={decodeURIComponent(p.name)} />}</Route>
            <Route path="/apps" component={Apps} />
            <Route path="/apps/new" component={NewApp} />
            <Route path="/apps/:id">{(p) => <AppDetail id={p.id} />}</Route>
            <Route path="/graph/:id">{(p) => <EntityView id={decodeURIComponent(p.id)} />}</Route>
            <Route path="/account" component={Account} />
            <Route path="/oauth/consent" component={Consent} />
            <Route path="/admin/users" component={AdminUsers} />
            <Route path="/admin/access" component={AdminAccess} />
            <Route path="/admin/audit" component={AdminAudit} />
            <Route path="/admin/audit/:id">{(p) => <AuditEventView id={p.id} />}</Route>
            <Route path="/admin/ai" component={AdminAi} />
            <Route path="/admin/sso" component={AdminSso} />
            <Route path="/admin/license" component={AdminLicense} />
            <Route path="/admin/expert-mode" component={AdminExpertMode} />
            <Route path="/admin/observability" component={AdminObservability} />
            <Route path="/copilot/answers" component={AnswerList} />
            <Route path="/copilot/answers/:id">{(p) => <StoredAnswerView id={p.id} />}</Route>
            <Route path="/ai/context" component={AiContextList} />
            <Route path="/ai/context/:id">{(p) => (/^[0-9]{1,12}$/.test(p.id) ? <AiContextDocumentView id={Number(p.id)} /> : <h1>Not found</h1>)}</Route>
            <Route>
              <h1>Not found</h1>
              <p>No view lives at this address.</p>
            </Route>
          </Switch>
        </Suspense>
      </main>
      {/* Outside <main>, so the conversation stays while the person follows its citations. */}
      <div id="copilot-dock" hidden={!docked}>
        <ChatDock chat={chat} onClose={() => setDocked(false)} />
      </div>
    </div>
  );
}

function SessionGate() {
  const me = useQuery(meQuery());
  if (me.isPending) return <Loading what="your session" />;
  if (me.error instanceof ApiError && me.error.status === 401) return <SignIn client={client} />;
  if (me.isError) return <ErrorView error={me.error} retry={() => void me.refetch()} />;
  return <Shell me={me.data} />;
}

export function App() {
  return (
    <QueryClientProvider client={client}>
      <SessionGate />
    </QueryClientProvider>
  );
}
