import { WorkerPanel } from "../token/WorkerPanel.tsx";

/** `/agents/workers/:tokenId`: a worker's detail (token address or NFT id), live. */
export default function WorkerPage({ tokenId }: { tokenId: string }) {
  return <WorkerPanel tokenId={tokenId.toLowerCase()} heading="h1" />;
}
