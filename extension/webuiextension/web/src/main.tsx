import { render } from 'preact';
import { App } from './app';
import './style.css';

// A HyperDX-style invitation link (/join-team?token=…, as the REST API's
// invitation answers for HyperDX clients) becomes the UI's own (/join#…)
// before anything else runs: the token leaves the address's query, which
// is sent to servers, for its fragment, which is not.
if (location.pathname === '/join-team') {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  history.replaceState(null, '', '/join' + (token ? '#' + token : ''));
}

render(<App />, document.getElementById('app')!);
