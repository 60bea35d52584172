// Every badge style, one renderer family as in shields' badge-maker: flat, flat-square,
// plastic, for-the-badge and social, laid out exactly as badge-maker lays them out for a label
// and a message without logo or links, so the plain badge and `?style=` give the picture a
// README author knows from img.shields.io. Ported from badge-maker 6 (lib/badge-renderers.js,
// github.com/badges/shields, licensed MIT OR Apache-2.0; the arithmetic below follows it,
// the code is our own). Every data-driven string goes through escapeXml.
import anafanafo from 'anafanafo';
import { EXTRA_BADGE_STYLES, type BadgeStyleName } from '../model/layout.ts';
import { escapeXml } from './escape.ts';

export type BadgeStyle = BadgeStyleName;
export const BADGE_STYLES: readonly BadgeStyle[] = ['flat', ...EXTRA_BADGE_STYLES];

export interface StyledLook {
  label: string;
  message: string;
  color: string;
  labelColor: string;
}

const FONT_FAMILY = 'Verdana,Geneva,DejaVu Sans,sans-serif';
const SOCIAL_FONT_FAMILY = 'Helvetica Neue,Helvetica,Arial,sans-serif';
const HORIZ_PADDING = 5;

function roundUpToOdd(n: number): number {
  return n % 2 === 0 ? n + 1 : n;
}

/** Text width as badge-maker measures it: whole pixels, rounded up to odd (pixel grid). */
export function preferredWidth(s: string, font: string): number {
  return roundUpToOdd(anafanafo(s, { font }) | 0);
}

/** 0..1 perceived brightness, rounded to two places as shields rounds it. */
export function brightness(hex: string): number {
  const h = hex.length === 4 ? hex.replace(/^#(.)(.)(.)$/, '#$1$1$2$2$3$3') : hex;
  const n = Number.parseInt(h.slice(1), 16);
  const r = (n >> 16) & 255;
  const g = (n >> 8) & 255;
  const b = n & 255;
  return Number(((r * 299 + g * 587 + b * 114) / 255000).toFixed(2));
}

/** Dark text on light backgrounds, white text (with a dark shadow) otherwise. */
export function textColors(background: string): { text: string; shadow: string } {
  return brightness(background) > 0.69 ? { text: '#333', shadow: '#ccc' } : { text: '#fff', shadow: '#010101' };
}

/** ` fill="…"` unless the text is white, which the foreground group already sets. */
function fillAttr(color: string): string {
  return color === '#fff' ? '' : ` fill="${color}"`;
}

function frame(width: number, height: number, accessibleText: string, body: string): string {
  const a = escapeXml(accessibleText);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${a}"><title>${a}</title>${body}</svg>`;
}

function foreground(content: string, fontSize = 110): string {
  return `<g fill="#fff" text-anchor="middle" font-family="${FONT_FAMILY}" text-rendering="geometricPrecision" font-size="${fontSize}">${content}</g>`;
}

/** Label and message geometry shared by flat, flat-square and plastic (badge-maker's Badge class). */
function twoPart(look: StyledLook) {
  const labelWidth = preferredWidth(look.label, '11px Verdana');
  const messageWidth = preferredWidth(look.message, '11px Verdana');
  const leftWidth = labelWidth + 2 * HORIZ_PADDING;
  const rightWidth = messageWidth + 2 * HORIZ_PADDING;
  return {
    leftWidth,
    rightWidth,
    width: leftWidth + rightWidth,
    label: { x: 10 * (1 + 0.5 * labelWidth + HORIZ_PADDING), length: 10 * labelWidth, colors: textColors(look.labelColor) },
    message: { x: 10 * (leftWidth - 1 + 0.5 * messageWidth + HORIZ_PADDING), length: 10 * messageWidth, colors: textColors(look.color) },
  };
}

function backgroundRects(leftWidth: number, rightWidth: number, height: number, look: StyledLook): string {
  return `<rect width="${leftWidth}" height="${height}" fill="${look.labelColor}"/><rect x="${leftWidth}" width="${rightWidth}" height="${height}" fill="${look.color}"/>`;
}

function flat(look: StyledLook): string {
  const g = twoPart(look);
  // A shadow one unit below each text; the message always names its fill.
  const text = (t: string, p: typeof g.label, fill: string) => {
    const s = escapeXml(t);
    return (
      `<text aria-hidden="true" x="${p.x}" y="150" fill="${p.colors.shadow}" fill-opacity=".3" transform="scale(.1)" textLength="${p.length}">${s}</text>` +
      `<text x="${p.x}" y="140" transform="scale(.1)"${fill} textLength="${p.length}">${s}</text>`
    );
  };
  const defs =
    '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>' +
    `<clipPath id="r"><rect width="${g.width}" height="20" rx="3" fill="#fff"/></clipPath>`;
  const background = `<g clip-path="url(#r)">${backgroundRects(g.leftWidth, g.rightWidth, 20, look)}<rect width="${g.width}" height="20" fill="url(#s)"/></g>`;
  const texts = text(look.label, g.label, fillAttr(g.label.colors.text)) + text(look.message, g.message, ` fill="${g.message.colors.text}"`);
  return frame(g.width, 20, `${look.label}: ${look.message}`, defs + background + foreground(texts));
}

function flatSquare(look: StyledLook): string {
  const g = twoPart(look);
  const text = (t: string, p: typeof g.label) => `<text x="${p.x}" y="140" transform="scale(.1)"${fillAttr(p.colors.text)} textLength="${p.length}">${escapeXml(t)}</text>`;
  return frame(g.width, 20, `${look.label}: ${look.message}`, `<g shape-rendering="crispEdges">${backgroundRects(g.leftWidth, g.rightWidth, 20, look)}</g>${foreground(text(look.label, g.label) + text(look.message, g.message))}`);
}

function plastic(look: StyledLook): string {
  const g = twoPart(look);
  // Height 18, text 10 units higher than flat's; a blurred and a plain shadow under each text.
  const text = (t: string, p: typeof g.label) => {
    const s = escapeXml(t);
    return (
      `<g transform="scale(.1)"><g aria-hidden="true" fill="${p.colors.shadow}">` +
      `<text x="${p.x}" y="140" fill-opacity=".8" filter="url(#blur)" textLength="${p.length}">${s}</text>` +
      `<text x="${p.x}" y="140" fill-opacity=".3" textLength="${p.length}">${s}</text></g>` +
      `<text x="${p.x}" y="130"${fillAttr(p.colors.text)} textLength="${p.length}">${s}</text></g>`
    );
  };
  const defs =
    '<filter id="blur"><feGaussianBlur stdDeviation="16"/></filter>' +
    '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#fff" stop-opacity=".7"/><stop offset=".1" stop-color="#aaa" stop-opacity=".1"/><stop offset=".9" stop-color="#000" stop-opacity=".3"/><stop offset="1" stop-color="#000" stop-opacity=".5"/></linearGradient>' +
    `<clipPath id="r"><rect width="${g.width}" height="18" rx="4"/></clipPath>`;
  const background = `<g clip-path="url(#r)">${backgroundRects(g.leftWidth, g.rightWidth, 18, look)}<rect width="${g.width}" height="18" fill="url(#s)"/></g>`;
  return frame(g.width, 18, `${look.label}: ${look.message}`, defs + background + foreground(text(look.label, g.label) + text(look.message, g.message)));
}

function forTheBadge(look: StyledLook): string {
  // All capitals, 10px Verdana (bold message), 1.25px letter spacing per UTF-16 unit, as badge-maker.
  const label = look.label.toUpperCase();
  const message = look.message.toUpperCase();
  const labelWidth = label.length ? (anafanafo(label, { font: '10px Verdana' }) | 0) + 1.25 * label.length : 0;
  const messageWidth = message.length ? (anafanafo(message, { font: 'bold 10px Verdana' }) | 0) + 1.25 * message.length : 0;
  const margin = 12;
  const labelRectWidth = margin + labelWidth + margin;
  const messageRectWidth = 2 * margin + messageWidth;
  const labelText = `<text transform="scale(.1)" x="${10 * (margin + 0.5 * labelWidth)}" y="175" textLength="${10 * labelWidth}"${fillAttr(textColors(look.labelColor).text)}>${escapeXml(label)}</text>`;
  const messageText = `<text transform="scale(.1)" x="${10 * (labelRectWidth + margin + 0.5 * messageWidth)}" y="175" textLength="${10 * messageWidth}" font-weight="bold"${fillAttr(textColors(look.color).text)}>${escapeXml(message)}</text>`;
  return frame(labelRectWidth + messageRectWidth, 28, `${label}: ${message}`, `<g shape-rendering="crispEdges">${backgroundRects(labelRectWidth, messageRectWidth, 28, look)}</g>${foreground(labelText + messageText, 100)}`);
}

function social(look: StyledLook): string {
  // A white label box with a leading capital and a speech-bubble count; the status colour is
  // not shown (as on shields), only the message text.
  const label = `${look.label.charAt(0).toUpperCase()}${look.label.slice(1)}`;
  const font = 'bold 11px Helvetica';
  const labelTextWidth = preferredWidth(label, font);
  const messageTextWidth = preferredWidth(look.message, font);
  const labelRectWidth = labelTextWidth + 2 * 5;
  const messageRectWidth = messageTextWidth + 2 * 4;
  const gutter = 6;
  const bubbleX = labelRectWidth + gutter + 0.5;
  const l = escapeXml(label);
  const m = escapeXml(look.message);
  const labelX = 10 * (labelTextWidth / 2 + 5);
  const messageX = 10 * (labelRectWidth + gutter + messageRectWidth / 2);
  const body =
    '<style>a:hover #llink{fill:url(#b);stroke:#ccc}a:hover #rlink{fill:#4183c4}</style>' +
    '<linearGradient id="a" x2="0" y2="100%"><stop offset="0" stop-color="#fcfcfc" stop-opacity="0"/><stop offset="1" stop-opacity=".1"/></linearGradient>' +
    '<linearGradient id="b" x2="0" y2="100%"><stop offset="0" stop-color="#ccc" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>' +
    `<g stroke="#d5d5d5"><rect stroke="none" fill="#fcfcfc" x=".5" y=".5" width="${labelRectWidth}" height="19" rx="2"/>` +
    `<rect x="${bubbleX}" y=".5" width="${messageRectWidth}" height="19" rx="2" fill="#fafafa"/>` +
    `<rect x="${labelRectWidth + gutter}" y="7.5" width=".5" height="5" stroke="#fafafa"/>` +
    `<path d="M${bubbleX} 6.5 l-3 3v1 l3 3" fill="#fafafa"/></g>` +
    `<g aria-hidden="true" fill="#333" text-anchor="middle" font-family="${SOCIAL_FONT_FAMILY}" text-rendering="geometricPrecision" font-weight="700" font-size="110px" line-height="14px">` +
    `<rect id="llink" stroke="#d5d5d5" fill="url(#a)" x=".5" y=".5" width="${labelRectWidth}" height="19" rx="2"/>` +
    `<text aria-hidden="true" x="${labelX}" y="150" fill="#fff" transform="scale(.1)" textLength="${10 * labelTextWidth}">${l}</text>` +
    `<text x="${labelX}" y="140" transform="scale(.1)" textLength="${10 * labelTextWidth}">${l}</text>` +
    `<text aria-hidden="true" x="${messageX}" y="150" fill="#fff" transform="scale(.1)" textLength="${10 * messageTextWidth}">${m}</text>` +
    `<text id="rlink" x="${messageX}" y="140" transform="scale(.1)" textLength="${10 * messageTextWidth}">${m}</text></g>`;
  return frame(labelRectWidth + 1 + gutter + messageRectWidth, 20, `${label}: ${look.message}`, body);
}

/** Unoptimised SVG of a badge in any style. */
export function drawBadge(style: BadgeStyle, look: StyledLook): string {
  switch (style) {
    case 'flat':
      return flat(look);
    case 'flat-square':
      return flatSquare(look);
    case 'plastic':
      return plastic(look);
    case 'for-the-badge':
      return forTheBadge(look);
    case 'social':
      return social(look);
  }
}
