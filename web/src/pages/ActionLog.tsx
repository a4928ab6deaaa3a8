export default function Page() {
  return <h1>Action log</h1>;
}
