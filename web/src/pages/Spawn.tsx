export default function Page() {
  return <h1>Spawn</h1>;
}
