import { useEffect, useState } from 'preact/hooks';
import { Account, get, messageOf, post, whenSignedOut } from './api';
import { navigate, onLink, useLocation } from './router';
import { AuthPage } from './pages/auth';
import { lazy } from './lazy';

// Each page is its own chunk: signing in loads neither uPlot nor the
// search page, and each page loads only what it shows.
const SearchPage = lazy(() => import('./pages/search').then((m) => m.SearchPage));
const TracePage = lazy(() => import('./pages/trace').then((m) => m.TracePage));
const TeamPage = lazy(() => import('./pages/team').then((m) => m.TeamPage));
const ServicesPage = lazy(() => import('./pages/services').then((m) => m.ServicesPage));
const DashboardsPage = lazy(() => import('./pages/dashboards').then((m) => m.DashboardsPage));
const DashboardPage = lazy(() => import('./pages/dashboards').then((m) => m.DashboardPage));
const MetricsPage = lazy(() => import('./pages/metrics').then((m) => m.MetricsPage));
const AlertsPage = lazy(() => import('./pages/alerts').then((m) => m.AlertsPage));

interface Status {
  needsOwner: boolean;
  signedIn: boolean;
}

// App decides between the sign-in pages and the signed-in app, and sends
// a person whose session ends back to sign-in with the page to return to.
export function App() {
  const loc = useLocation();
  const [status, setStatus] = useState<Status | null>(null);
  const [me, setMe] = useState<Account | null>(null);
  const [error, setError] = useState('');

  const refresh = async () => {
    try {
      const s = await get<Status>('/api/status');
      setStatus(s);
      setMe(s.signedIn ? await get<Account>('/api/me') : null);
      setError('');
    } catch (e) {
      setError(messageOf(e));
      setTimeout(refresh, 1000); // the API may still be starting
    }
  };
  useEffect(() => {
    refresh();
    whenSignedOut(() => {
      setMe(null);
      setStatus((s) => (s ? { ...s, signedIn: false } : s));
      const here = location.pathname + location.search;
      if (!here.startsWith('/login')) navigate('/login?next=' + encodeURIComponent(here), true);
    });
  }, []);

  if (!status) return <div class="center muted">{error || 'Loading…'}</div>;
  const path = loc.pathname;
  if (path === '/join' || !me) {
    return (
      <AuthPage
        mode={path === '/join' ? 'join' : status.needsOwner ? 'create' : 'login'}
        onSignedIn={async () => {
          await refresh();
          // Back to where the person was sent from, or was when the page
          // loaded without a session.
          const next = loc.searchParams.get('next') ?? (path === '/login' || path === '/join' || path === '/' ? null : path + loc.search);
          navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/search/logs', true);
        }}
      />
    );
  }
  return (
    <div class="shell">
      <Nav me={me} path={path} onSignOut={async () => {
        await post('/api/logout', {});
        setMe(null);
        navigate('/login', true);
        refresh();
      }} />
      <main>{route(path, me)}</main>
    </div>
  );
}

function route(path: string, me: Account) {
  if (path === '/' || path === '/login' || path === '/search') return <Redirect to="/search/logs" />;
  if (path === '/search/logs') return <SearchPage kind="log" />;
  if (path === '/search/traces') return <SearchPage kind="trace" />;
  if (path.startsWith('/traces/')) return <TracePage traceId={decodeURIComponent(path.slice(8))} />;
  if (path === '/services') return <ServicesPage />;
  if (path === '/dashboards') return <DashboardsPage />;
  if (path.startsWith('/dashboards/')) return <DashboardPage id={decodeURIComponent(path.slice(12))} />;
  if (path === '/metrics') return <MetricsPage />;
  if (path === '/alerts') return <AlertsPage />;
  if (path === '/team') return <TeamPage me={me} />;
  return (
    <div class="page">
      <h1>Not found</h1>
      <p>
        Nothing lives at <code>{path}</code>. <a href="/search/logs" onClick={(e) => onLink(e, '/search/logs')}>Search logs</a>
      </p>
    </div>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, true), [to]);
  return null;
}

function Nav({ me, path, onSignOut }: { me: Account; path: string; onSignOut: () => void }) {
  const item = (to: string, label: string) => (
    <a href={to} class={path.startsWith(to) ? 'active' : ''} onClick={(e) => onLink(e, to)}>
      {label}
    </a>
  );
  return (
    <nav class="nav">
      <div class="brand">otelhouse</div>
      {item('/search/logs', 'Logs')}
      {item('/search/traces', 'Traces')}
      {item('/services', 'Services')}
      {item('/metrics', 'Metrics')}
      {item('/dashboards', 'Dashboards')}
      {item('/alerts', 'Alerts')}
      <div class="grow" />
      {item('/team', 'Team Settings')}
      <div class="who" title={me.email}>{me.email}</div>
      <button class="link" onClick={onSignOut}>Sign out</button>
    </nav>
  );
}
