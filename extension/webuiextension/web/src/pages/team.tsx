import { useEffect, useState } from 'preact/hooks';
import { Account, del, get, Invitation, Key, Member, messageOf, post } from '../api';
import { fmtShort } from '../time';

interface Team {
  members: Member[];
  invitations: Invitation[];
}

// TeamPage is Team Settings: API Keys (the personal key the REST API takes
// as Bearer, the ingestion key agents and OTLP senders use), members and
// invitations, and the account's password.
export function TeamPage({ me }: { me: Account }) {
  const [keys, setKeys] = useState<{ personal: Key[]; ingestion: Key[] } | null>(null);
  const [team, setTeam] = useState<Team | null>(null);
  const [error, setError] = useState('');
  const load = () => {
    get<{ personal: Key[]; ingestion: Key[] }>('/api/v2/keys').then(setKeys).catch((e) => setError(e.message));
    Promise.all([get<Team['members']>('/api/v2/team/members'), get<Team['invitations']>('/api/v2/team/invitations')])
      .then(([members, invitations]) => setTeam({ members, invitations })).catch((e) => setError(e.message));
  };
  useEffect(load, []);

  return (
    <div class="page team">
      <h1>Team Settings</h1>
      {error && <p class="error" role="alert">{error}</p>}
      <section class="card">
        <h2>API Keys</h2>
        <KeyRow title="Personal API Access Key" testid="personal-key"
          help="Your key for the REST API (port 8000 unless the operator moved it): Authorization: Bearer <key>."
          keys={keys?.personal} onRotate={async () => { await post('/api/v2/keys/personal/rotate', {}); load(); }} />
        <KeyRow title="Ingestion API Key" testid="ingestion-key"
          help="The team's key for agents and SDKs: the Datadog Agent's api_key (DD-API-KEY), and OTLP's Authorization: Bearer <key>."
          keys={keys?.ingestion} onRotate={async () => { await post('/api/v2/keys/ingestion/rotate', {}); load(); }} />
      </section>
      <Members me={me} team={team} reload={load} />
      <Password />
    </div>
  );
}

function KeyRow({ title, help, keys, onRotate, testid }: { title: string; help: string; keys?: Key[]; onRotate: () => Promise<void>; testid: string }) {
  const [copied, setCopied] = useState('');
  const [confirming, setConfirming] = useState(false);
  const copy = async (k: string) => {
    try {
      await navigator.clipboard.writeText(k);
    } catch {
      const ta = document.createElement('textarea');
      ta.value = k;
      document.body.appendChild(ta);
      ta.select();
      document.execCommand('copy');
      ta.remove();
    }
    setCopied(k);
    setTimeout(() => setCopied(''), 1500);
  };
  return (
    <div class="keyrow" data-testid={testid}>
      <div class="keyrow-head">
        <h3>{title}</h3>
        {confirming ? (
          <span class="confirm small">
            The current key stops working at once.{' '}
            <button class="danger small" onClick={async () => { setConfirming(false); await onRotate(); }}>Rotate now</button>{' '}
            <button class="ghost small" onClick={() => setConfirming(false)}>Cancel</button>
          </span>
        ) : <button class="ghost small" data-action="rotate" onClick={() => setConfirming(true)}>Rotate</button>}
      </div>
      <p class="muted small">{help}</p>
      {!keys ? <p class="muted small">Loading…</p> : keys.length === 0 ? <p class="muted small">No key: rotate to make one.</p> : keys.map((k) => (
        <div class="key">
          {k.key ? <code class="secret" data-key>{k.key}</code> : <code class="muted">{k.source === 'configured' ? 'set in configuration (e.g. OTLP_AUTH_TOKEN); not shown' : 'made before keys could be shown; rotate to see one'}</code>}
          {k.key && <button class="ghost small" onClick={() => copy(k.key!)}>{copied === k.key ? 'Copied' : 'Copy'}</button>}
          <span class="muted small">id {k.id} · {fmtShort(Date.parse(k.createdAt))}</span>
        </div>
      ))}
    </div>
  );
}

function Members({ me, team, reload }: { me: Account; team: Team | null; reload: () => void }) {
  const [email, setEmail] = useState('');
  const [link, setLink] = useState('');
  const [error, setError] = useState('');
  const [removing, setRemoving] = useState('');
  const invite = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const r = await post<{ path: string }>('/api/v2/team/invitation', { email });
      setLink(location.origin + r.path);
      setEmail('');
      reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <section class="card">
      <h2>Members</h2>
      <table class="plain">
        <tbody>
          {team?.members.map((m) => (
            <tr>
              <td>{m.email}{m.id === me.id && <span class="muted small"> (you)</span>}</td>
              <td class="muted small">{m.role}</td>
              <td>{m.role !== 'owner' && m.id !== me.id && (removing === m.id ? (
                <span class="confirm small" role="alertdialog">Remove {m.email} from the team?{' '}
                  <button class="danger small" data-action="confirm-remove" onClick={async () => {
                    setRemoving('');
                    try { await del(`/api/v2/team/member/${m.id}`); reload(); } catch (err) { setError(messageOf(err)); }
                  }}>Remove</button>{' '}
                  <button class="ghost small" onClick={() => setRemoving('')}>Cancel</button>
                </span>
              ) : <button class="ghost small" data-action="remove" onClick={() => setRemoving(m.id)}>Remove</button>)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Invite</h3>
      <form class="inline" onSubmit={invite}>
        <input type="email" placeholder="colleague@example.com (optional)" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <button class="primary" type="submit">Create invitation link</button>
      </form>
      {link && <p class="small">Send this link; it works once, for 7 days: <code data-testid="invite-link">{link}</code></p>}
      {error && <p class="error" role="alert">{error}</p>}
      {team && team.invitations.length > 0 && (
        <table class="plain">
          <tbody>
            {team.invitations.map((i) => (
              <tr>
                <td>{i.email || <span class="muted">anyone with the link</span>}</td>
                <td class="muted small">by {i.createdBy}, until {fmtShort(Date.parse(i.expiresAt))}</td>
                <td><button class="ghost small" onClick={async () => { try { await del(`/api/v2/team/invitation/${i.id}`); reload(); } catch (err) { setError(messageOf(err)); } }}>Revoke</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Password() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [msg, setMsg] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    setMsg('');
    setError('');
    try {
      await post('/api/me/password', { current, password: next });
      setMsg('Password changed.');
      setCurrent('');
      setNext('');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <section class="card">
      <h2>Change password</h2>
      <form class="stack" onSubmit={submit}>
        <label>Current password<input type="password" autoComplete="current-password" value={current} onInput={(e) => setCurrent(e.currentTarget.value)} required /></label>
        <label>New password<input type="password" autoComplete="new-password" minLength={8} value={next} onInput={(e) => setNext(e.currentTarget.value)} required /></label>
        <button class="primary" type="submit">Change password</button>
        {msg && <p class="ok">{msg}</p>}
        {error && <p class="error" role="alert">{error}</p>}
      </form>
    </section>
  );
}
