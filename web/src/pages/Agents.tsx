export default function Page() {
  return <h1>Agents</h1>;
}
