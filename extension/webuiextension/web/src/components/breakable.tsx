// breakable lets a long dotted name (a metric, a field path) wrap after
// its dots and underscores rather than mid-word: a narrow column broke
// "Resource.datadog.log.sou/rce". The text stays the name as typed (a
// <wbr> adds no character to what is copied or read).
export function breakable(name: string) {
  return name.split(/(?<=[._])/).map((part, i) => <>{i > 0 && <wbr />}{part}</>);
}
