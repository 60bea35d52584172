declare module 'anafanafo' {
  /** Width in pixels of `text` in the given font (e.g. "11px Verdana"). */
  export default function anafanafo(
    text: string,
    options: { font: string; guess?: boolean },
  ): number;
}
