import { useState } from 'preact/hooks';
import { messageOf, post } from '../api';

type Mode = 'create' | 'login' | 'join';

// AuthPage: "Create account" on an install with no account, sign-in
// after that, and joining a team through an invitation link (/join#token).
export function AuthPage({ mode, onSignedIn }: { mode: Mode; onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const invitation = mode === 'join' ? location.hash.slice(1) : '';
  const creating = mode !== 'login';

  const submit = async (e: Event) => {
    e.preventDefault();
    setError('');
    if (creating && password !== confirm) {
      setError('The passwords do not match.');
      return;
    }
    setBusy(true);
    try {
      if (creating) await post('/api/register', { email, password, ...(invitation ? { invitation } : {}) });
      else await post('/api/login', { email, password });
      onSignedIn();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const title = mode === 'create' ? 'Create account' : mode === 'join' ? 'Join your team' : 'Sign in';
  return (
    <div class="auth">
      <form class="card auth-card" onSubmit={submit}>
        <div class="brand big">otelhouse</div>
        <h1>{title}</h1>
        {mode === 'create' && <p class="muted">No account exists yet. The first account owns this install's team.</p>}
        {mode === 'join' && !invitation && <p class="error">This link has no invitation in it. Ask a team member for a new one.</p>}
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete={creating ? 'new-password' : 'current-password'} required minLength={creating ? 8 : undefined}
            value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          {creating && <span class="small">At least 8 characters; a long passphrase is best.</span>}
        </label>
        {creating && (
          <label>
            Confirm password
            <input name="confirm" type="password" autoComplete="new-password" required value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} />
          </label>
        )}
        {error && <p class="error" role="alert">{error}</p>}
        <button class="primary" type="submit" disabled={busy}>{busy ? 'Please wait…' : title}</button>
        {mode === 'login' && <p class="muted small">New here? Ask a team member for an invitation link.</p>}
      </form>
    </div>
  );
}
