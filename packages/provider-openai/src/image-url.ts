/**
 * Turns core's `image` (a URL, a data URL, or raw base64) into a URL OpenAI accepts.
 */
export function toImageUrl(image: string, mediaType: string | undefined): string {
  if (image.startsWith('http://') || image.startsWith('https://') || image.startsWith('data:')) return image;
  return `data:${mediaType ?? 'image/png'};base64,${image}`;
}
