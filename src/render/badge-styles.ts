// Every badge style, one renderer family as in shields' badge-maker: flat, flat-square,
// plastic, for-the-badge and social, laid out exactly as badge-maker lays them out for a label
// and a message without logo or links, so the plain badge and `?style=` give the picture a
// README author knows from img.shields.io. Ported from badge-maker 6 (lib/badge-renderers.js,
// github.com/badges/shields, licensed MIT OR Apache-2.0; the arithmetic below follows it,
// the code is our own).
//
// The geometry is computed here (text widths, paddings, colours, text colours and shadows):
// one small function per style returns the view its template is filled in with. The markup
// of each style is a mustache template, templates/badge-<style>.svg.mustache, read once with
// the config (src/config/templates.ts) and handed over in the BadgeTemplates. Every value
// goes into the markup through escapeXml (mustache's own escape would turn `/`, `=` and `` ` ``
// into entities and keep the characters XML forbids).
import anafanafo from 'anafanafo';
import Mustache, { type RenderOptions } from 'mustache';
import type { BadgeTemplates } from '../config/templates.ts';
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

const HORIZ_PADDING = 5;

function roundUpToOdd(n: number): number {
  return n % 2 === 0 ? n + 1 : n;
}

/** Text width as badge-maker measures it: whole pixels, rounded up to odd (pixel grid). */
function preferredWidth(s: string, font: string): number {
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
function textColors(background: string): { text: string; shadow: string } {
  return brightness(background) > 0.69
    ? { text: '#333', shadow: '#ccc' }
    : { text: '#fff', shadow: '#010101' };
}

/** A text's fill attribute, or none when the text is white, which the foreground group already sets. */
function fillOf(color: string): string | undefined {
  return color === '#fff' ? undefined : color;
}

/** One text of a badge (the label or the message): what its template section fills in. */
interface TextView {
  text: string;
  /** Centre and length, in the tenths of a pixel the text is drawn in (`scale(.1)`). */
  x: number;
  length: number;
  /** The text's colour, its shadow's, and the colour as an optional fill attribute. */
  textColor?: string;
  shadow?: string;
  fill?: string | undefined;
}

/** What a style's template is filled in with: the badge's box, its colours and its two texts. */
interface BadgeView {
  width: number;
  accessibleText: string;
  labelColor: string;
  color: string;
  label: TextView;
  message: TextView;
  /** The two boxes' widths (every style but social). */
  leftWidth?: number;
  rightWidth?: number;
  /** Social's label box and count bubble, and where the bubble's gutter and arrow stand. */
  labelRectWidth?: number;
  messageRectWidth?: number;
  gutterX?: number;
  bubbleX?: number;
}

function coloredText(text: string, x: number, length: number, background: string): TextView {
  const colors = textColors(background);
  return {
    text,
    x,
    length,
    textColor: colors.text,
    shadow: colors.shadow,
    fill: fillOf(colors.text),
  };
}

/** Label and message geometry of flat, flat-square and plastic (badge-maker's Badge class). */
function twoPart(look: StyledLook): BadgeView {
  const labelWidth = preferredWidth(look.label, '11px Verdana');
  const messageWidth = preferredWidth(look.message, '11px Verdana');
  const leftWidth = labelWidth + 2 * HORIZ_PADDING;
  const rightWidth = messageWidth + 2 * HORIZ_PADDING;
  return {
    width: leftWidth + rightWidth,
    leftWidth,
    rightWidth,
    accessibleText: `${look.label}: ${look.message}`,
    labelColor: look.labelColor,
    color: look.color,
    label: coloredText(
      look.label,
      10 * (1 + 0.5 * labelWidth + HORIZ_PADDING),
      10 * labelWidth,
      look.labelColor,
    ),
    message: coloredText(
      look.message,
      10 * (leftWidth - 1 + 0.5 * messageWidth + HORIZ_PADDING),
      10 * messageWidth,
      look.color,
    ),
  };
}

function forTheBadge(look: StyledLook): BadgeView {
  // All capitals, 10px Verdana (bold message), 1.25px letter spacing per UTF-16 unit, as badge-maker.
  const label = look.label.toUpperCase();
  const message = look.message.toUpperCase();
  const labelWidth = label.length
    ? (anafanafo(label, { font: '10px Verdana' }) | 0) + 1.25 * label.length
    : 0;
  const messageWidth = message.length
    ? (anafanafo(message, { font: 'bold 10px Verdana' }) | 0) + 1.25 * message.length
    : 0;
  const margin = 12;
  const labelRectWidth = margin + labelWidth + margin;
  const messageRectWidth = 2 * margin + messageWidth;
  return {
    width: labelRectWidth + messageRectWidth,
    leftWidth: labelRectWidth,
    rightWidth: messageRectWidth,
    accessibleText: `${label}: ${message}`,
    labelColor: look.labelColor,
    color: look.color,
    label: coloredText(label, 10 * (margin + 0.5 * labelWidth), 10 * labelWidth, look.labelColor),
    message: coloredText(
      message,
      10 * (labelRectWidth + margin + 0.5 * messageWidth),
      10 * messageWidth,
      look.color,
    ),
  };
}

function social(look: StyledLook): BadgeView {
  // A white label box with a leading capital and a speech-bubble count; the status colour is
  // not shown (as on shields), only the message text.
  const label = `${look.label.charAt(0).toUpperCase()}${look.label.slice(1)}`;
  const font = 'bold 11px Helvetica';
  const labelTextWidth = preferredWidth(label, font);
  const messageTextWidth = preferredWidth(look.message, font);
  const labelRectWidth = labelTextWidth + 2 * 5;
  const messageRectWidth = messageTextWidth + 2 * 4;
  const gutter = 6;
  return {
    width: labelRectWidth + 1 + gutter + messageRectWidth,
    labelRectWidth,
    messageRectWidth,
    gutterX: labelRectWidth + gutter,
    bubbleX: labelRectWidth + gutter + 0.5,
    accessibleText: `${label}: ${look.message}`,
    labelColor: look.labelColor,
    color: look.color,
    label: { text: label, x: 10 * (labelTextWidth / 2 + 5), length: 10 * labelTextWidth },
    message: {
      text: look.message,
      x: 10 * (labelRectWidth + gutter + messageRectWidth / 2),
      length: 10 * messageTextWidth,
    },
  };
}

/** Each style's view: flat, flat-square and plastic share badge-maker's two-part geometry. */
const VIEWS: Readonly<Record<BadgeStyle, (look: StyledLook) => BadgeView>> = {
  flat: twoPart,
  'flat-square': twoPart,
  plastic: twoPart,
  'for-the-badge': forTheBadge,
  social,
};

/** `{{ }}` in a badge template escapes for XML as the rest of the site does. */
const RENDER_OPTIONS: RenderOptions = { escape: (v: unknown) => escapeXml(String(v)) };

/** Unoptimised SVG of a badge in any style, from the style's template. */
export function drawBadge(templates: BadgeTemplates, style: BadgeStyle, look: StyledLook): string {
  return Mustache.render(templates[style], VIEWS[style](look), undefined, RENDER_OPTIONS);
}
