import QRCode from "qrcode";
import { useEffect, useState } from "react";

/** `text` as a QR code (an SVG made by the `qrcode` package), labelled for screen readers. */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toString(text, { type: "svg", margin: 2, errorCorrectionLevel: "M" }).then(
      (made) => live && setSvg(made),
      () => live && setSvg(null),
    );
    return () => {
      live = false;
    };
  }, [text]);
  if (svg === null) return null;
  // The SVG is the qrcode package's own output for our text (paths only), not user markup.
  return (
    <div
      className="qr"
      role="img"
      aria-label={label}
      // biome-ignore lint/security/noDangerouslySetInnerHtml: generated locally by qrcode, no user HTML
      dangerouslySetInnerHTML={{ __html: svg }}
    />
  );
}
