import { useEffect, useRef } from 'preact/hooks';

// useWhenVisible answers a ref for an element at the end of a list and
// calls more whenever that element scrolls into view: the next page of
// an endless list (search rows, the trace list).
export function useWhenVisible(more: () => void) {
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const io = new IntersectionObserver((es) => es.some((e) => e.isIntersecting) && more());
    io.observe(el);
    return () => io.disconnect();
  });
  return sentinel;
}
