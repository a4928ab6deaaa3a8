export default function Page(_props: { address: string }) {
  return <h1>Token</h1>;
}
