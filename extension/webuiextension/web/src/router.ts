import { useEffect, useState } from 'preact/hooks';

// The app's routes are real paths (the server answers index.html for
// them), and a view's state lives in the query string, so every view can
// be shared and reloaded.

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(to: string, replace = false) {
  if (to === location.pathname + location.search + location.hash) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((l) => l());
}

export function useLocation(): URL {
  const [, tick] = useState(0);
  useEffect(() => {
    const l = () => tick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return new URL(location.href);
}

// Link navigates inside the app without a page load.
export function onLink(e: MouseEvent, to: string) {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(to);
}
