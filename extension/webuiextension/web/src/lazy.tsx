import { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

// lazy loads a page's module on first use and renders it once loaded.
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  return function Lazy(props: P) {
    const [C, setC] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState('');
    useEffect(() => {
      if (C) return;
      pending ??= load();
      pending.then((c) => { loaded = c; setC(() => c); }).catch((e) => { pending = null; setError(String(e)); });
    }, []);
    if (error) return <div class="page error">Could not load this page: {error}. Reload to try again.</div>;
    return C ? <C {...props} /> : <div class="page muted">Loading…</div>;
  };
}
