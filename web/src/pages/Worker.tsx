export default function Page(_props: { tokenId: string }) {
  return <h1>Worker</h1>;
}
