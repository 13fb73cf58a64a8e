/// <reference lib="dom" />
/** Small DOM helpers for the explorer's webview: elements are built in code, never from HTML text. */

type Attrs = Record<string, string | number | boolean | undefined>;

/** An element with attributes (`class`, `role`, `aria-*`, `data-*`...) and children; text children become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs,
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Array<Node | string>): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Array<Node | string>): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) el.append(c);
  return el;
}

/** A codicon glyph, hidden from screen readers (the control around it carries the name). */
export function icon(name: string): HTMLElement {
  return h('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}

/** A theme colour by its CSS variable, resolved now (the canvas cannot read variables itself). */
export function themeColor(variable: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(variable).trim();
  return v || fallback;
}
