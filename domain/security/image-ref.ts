// An image reference's tag and digest, as a container runtime reads it:
// [registry[:port]/]repository[:tag][@algorithm:hex]. A registry port is not a tag,
// so the tag is only looked for in the last path component.

export interface ImageRef {
  /** null when the reference names no tag (the runtime then pulls `latest`). */
  tag: string | null;
  /** `sha256:...`, or null when the reference is not pinned by digest. */
  digest: string | null;
}

export function parseImageRef(image: string): ImageRef {
  const at = image.indexOf('@');
  const name = at === -1 ? image : image.slice(0, at);
  const digest = at === -1 ? null : image.slice(at + 1) || null;
  const last = name.slice(name.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  const tag = colon === -1 ? null : last.slice(colon + 1) || null;
  return { tag, digest };
}
