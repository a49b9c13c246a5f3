import type { Page } from 'playwright-core';

/**
 * What a broken layout looks like, measured in the page instead of compared pixel by pixel
 * (pixels differ between chromium versions and fonts): the page's regions and controls
 * must lie inside the viewport and not overlap, nothing may scroll sideways, and text must
 * stand out from what is behind it (WCAG contrast: 4.5:1, 3:1 for large text).
 * Returns one line per problem; an empty list is a sound layout.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const name = (el: Element) => {
      const id = el.id ? `#${el.id}` : '';
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      return `${el.tagName.toLowerCase()}${id}${cls}`;
    };
    const shown = (el: Element) => {
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      return style.display !== 'none' && style.visibility !== 'hidden' && box.width > 0 && box.height > 0;
    };
    const inside = (el: Element) => {
      const box = el.getBoundingClientRect();
      if (box.left < -0.5 || box.top < -0.5 || box.right > vw + 0.5 || box.bottom > vh + 0.5) {
        problems.push(`${name(el)} leaves the viewport (${Math.round(box.left)},${Math.round(box.top)})–(${Math.round(box.right)},${Math.round(box.bottom)}) in ${vw}×${vh}`);
      }
    };
    const overlap = (a: Element, b: Element) => {
      const p = a.getBoundingClientRect();
      const q = b.getBoundingClientRect();
      const x = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (x > 1 && y > 1) problems.push(`${name(a)} and ${name(b)} overlap by ${Math.round(x)}×${Math.round(y)} px`);
    };

    // The regions of the page: each inside the viewport, none on top of another.
    const sidebar = document.querySelector('.sidebar');
    const sidebarOpen = sidebar?.classList.contains('open') ?? false;
    const regions = ['.chat-head', '#setup', '.messages', '#error', '.composer']
      .map((selector) => document.querySelector(selector))
      .filter((el): el is Element => el !== null && shown(el));
    if (sidebar && shown(sidebar) && !sidebarOpen) regions.push(sidebar);
    for (const el of regions) inside(el);
    for (let i = 0; i < regions.length; i++) for (let j = i + 1; j < regions.length; j++) overlap(regions[i], regions[j]);

    // The controls people press or read in the header, the composer and the form: inside, apart.
    const groups = ['.chat-head', '.composer-row', '.sidebar-head', '.setup-actions', '.field-row'];
    for (const selector of groups) {
      const group = document.querySelector(selector);
      if (!group || !shown(group)) continue;
      const parts = Array.from(group.children).filter(shown);
      for (const el of parts) inside(el);
      for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) overlap(parts[i], parts[j]);
    }

    // Nothing scrolls sideways: not the page, not the conversation.
    const root = document.documentElement;
    if (root.scrollWidth > vw + 0.5) problems.push(`the page scrolls sideways: ${root.scrollWidth} px wide in a ${vw} px viewport`);
    const messages = document.querySelector('.messages');
    if (messages && messages.scrollWidth > messages.clientWidth + 0.5) {
      problems.push(`the conversation scrolls sideways: ${messages.scrollWidth} px in ${messages.clientWidth} px`);
    }

    // Contrast of every piece of text on screen against the colour behind it.
    const rgba = (text: string): [number, number, number, number] => {
      const parts = /rgba?\(([^)]+)\)/.exec(text)?.[1].split(/[,\s/]+/).filter(Boolean).map(Number) ?? [0, 0, 0, 0];
      return [parts[0], parts[1], parts[2], parts[3] ?? 1];
    };
    const over = (top: [number, number, number, number], under: [number, number, number]): [number, number, number] => [
      top[0] * top[3] + under[0] * (1 - top[3]),
      top[1] * top[3] + under[1] * (1 - top[3]),
      top[2] * top[3] + under[2] * (1 - top[3]),
    ];
    const behind = (el: Element): [number, number, number] => {
      const layers: Array<[number, number, number, number]> = [];
      for (let node: Element | null = el; node; node = node.parentElement) {
        const colour = rgba(getComputedStyle(node).backgroundColor);
        if (colour[3] > 0) layers.push(colour);
        if (colour[3] >= 1) break;
      }
      let result: [number, number, number] = [255, 255, 255];
      for (const layer of layers.reverse()) result = over(layer, result);
      return result;
    };
    const luminance = ([r, g, b]: [number, number, number]) => {
      const channel = (v: number) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const seen = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || !node.textContent?.trim() || !shown(el) || el.closest('[hidden], [aria-hidden="true"], button:disabled, .skip-link')) continue;
      const box = el.getBoundingClientRect();
      if (box.bottom < 0 || box.top > vh || box.right < 0 || box.left > vw) continue;
      const style = getComputedStyle(el);
      const background = behind(el);
      const colour = over(rgba(style.color), background);
      const [light, dark] = [luminance(colour), luminance(background)].sort((a, b) => b - a);
      const ratio = (light + 0.05) / (dark + 0.05);
      const size = Number.parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const needed = large ? 3 : 4.5;
      const key = `${name(el)} ${style.color} ${background.join(',')}`;
      if (ratio < needed && !seen.has(key)) {
        seen.add(key);
        problems.push(`low contrast ${ratio.toFixed(2)}:1 (needs ${needed}:1) for "${node.textContent.trim().slice(0, 30)}" in ${name(el)}`);
      }
    }
    return problems;
  });
}
