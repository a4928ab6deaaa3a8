export default function Page(_props: { pair: string }) {
  return <h1>Market</h1>;
}
