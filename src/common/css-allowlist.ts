/**
 * The inline styles user HTML keeps: formatting an editor produces (colours, alignment, fonts, spacing,
 * sizes, borders), each property with a value pattern. A value matches as a whole, case-insensitively,
 * and is made of plain tokens only: no `url(`, `expression(`, `javascript:`, escapes, comments or
 * `var(`, so a style can neither load anything nor run anything. Layout escapes (position, z-index,
 * background images) are not in the list, and neither are the ways out of the post's own box that the
 * remaining properties offer, since a post must not be able to cover or imitate the page around it:
 * - lengths are non-negative everywhere except vertical-align (which only grows the line box), so no
 *   negative margin, indent or letter-spacing pulls a post over what is around it;
 * - no viewport units (vw, vh, vmin, vmax, their dvh/svh/lvh… variants, nor container units): a length
 *   is one of the units below, so a post cannot size itself to the window;
 * - every length is capped per property (CAPS), in CSS pixels, with em/rem counted as 16 px, ex/ch as 8.
 * The caps hold per declaration: relative sizes still compound through nesting, as headings do without
 * any style, so the page showing user HTML contains it (its box clips or scrolls overflow).
 */
const UNSIGNED = String.raw`(?:\d+|\d*\.\d+)`;
const NUM = String.raw`[-+]?${UNSIGNED}`;
const UNITS = 'px|em|rem|%|pt|pc|cm|mm|in|ex|ch';
const LENGTH = String.raw`(?:0|\+?${UNSIGNED}(?:${UNITS}))`;
const SIGNED_LENGTH = String.raw`(?:0|${NUM}(?:${UNITS}))`;
// Named colours (and transparent, currentcolor) are single words; the functions take numbers only.
const COLOR = String.raw`(?:#[0-9a-f]{3,8}|(?:rgba?|hsla?)\(\s*${NUM}(?:%|deg)?(?:\s*[,/]?\s*${NUM}%?){2,3}\s*\)|[a-z]{3,20})`;
const BORDER_STYLE = 'none|hidden|solid|dashed|dotted|double|groove|ridge|inset|outset';

/** CSS pixels per unit (96 per inch); % is capped on its own. */
const PX_PER: Record<string, number> = { px: 1, em: 16, rem: 16, ex: 8, ch: 8, pt: 96 / 72, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 };

/** The largest value a property takes: in CSS pixels, in %, and (line-height only) as a plain number. */
interface Cap {
  px: number;
  percent: number;
  number?: number;
}

export const CAPS = {
  /** width, height and their min-/max- forms. */
  size: { px: 2000, percent: 100 },
  fontSize: { px: 96, percent: 400 },
  lineHeight: { px: 200, percent: 400, number: 4 },
  /** margin, padding, text-indent (editors indent by 40 px a level). */
  spacing: { px: 500, percent: 50 },
  border: { px: 20, percent: 0 },
  borderRadius: { px: 1000, percent: 50 },
  borderSpacing: { px: 50, percent: 0 },
  letterSpacing: { px: 50, percent: 0 },
  verticalAlign: { px: 50, percent: 100 },
} satisfies Record<string, Cap>;

const NUMBER_TOKEN = new RegExp(`^(${NUM})([a-z%]*)$`, 'i');

/** Whether every numeric token of a value (already matched by its pattern) is within the cap. */
function withinCap(value: string, cap: Cap): boolean {
  for (const token of value.trim().split(/\s+/)) {
    const m = NUMBER_TOKEN.exec(token);
    if (!m) continue; // a keyword or a colour
    const n = Math.abs(Number(m[1]));
    const unit = m[2].toLowerCase();
    const ok = unit === '' ? cap.number === undefined || n <= cap.number : unit === '%' ? n <= cap.percent : n * (PX_PER[unit] ?? Infinity) <= cap.px;
    if (!ok) return false;
  }
  return true;
}

/**
 * A value pattern that also caps its lengths. sanitize-html only calls `test` on what it is given, so
 * a RegExp whose `test` checks the numbers too slots into `allowedStyles` unchanged.
 */
class CappedPattern extends RegExp {
  constructor(
    pattern: RegExp,
    private readonly cap: Cap,
  ) {
    super(pattern.source, pattern.flags);
  }

  override test(value: string): boolean {
    return super.test(value) && withinCap(value, this.cap);
  }
}

/** `count` space-separated tokens (from `min` to `max`), each one of the alternatives. */
function tokens(alternatives: string, min = 1, max = 1): RegExp {
  const one = `(?:${alternatives})`;
  return new RegExp(`^${one}(?:\\s+${one}){${min - 1},${max - 1}}$`, 'i');
}

const keywords = (...words: string[]) => tokens(words.join('|'));
const capped = (pattern: RegExp, cap: Cap) => [new CappedPattern(pattern, cap)];
const lengthOrAuto = tokens(`${LENGTH}|auto`);
const box = tokens(`${LENGTH}|auto`, 1, 4);
const border = capped(tokens(`${LENGTH}|thin|medium|thick|${BORDER_STYLE}|${COLOR}`, 1, 3), CAPS.border);
const color = tokens(COLOR);

const PROPERTIES: Record<string, RegExp[]> = {
  color: [color],
  'background-color': [color],
  'text-align': [keywords('left', 'right', 'center', 'justify', 'start', 'end')],
  'vertical-align': capped(keywords('baseline', 'top', 'middle', 'bottom', 'sub', 'super', 'text-top', 'text-bottom', SIGNED_LENGTH), CAPS.verticalAlign),
  'font-size': capped(keywords(LENGTH, 'xx-small', 'x-small', 'small', 'medium', 'large', 'x-large', 'xx-large', 'smaller', 'larger'), CAPS.fontSize),
  'font-weight': [keywords('normal', 'bold', 'bolder', 'lighter', '[1-9]00')],
  'font-style': [keywords('normal', 'italic', 'oblique')],
  // Family names, quoted or not, separated by commas (quotes are escaped when the attribute is written).
  'font-family': [/^[a-z0-9 ,'"-]{1,200}$/i],
  'text-decoration': [tokens(`none|underline|overline|line-through|solid|double|dotted|dashed|wavy|${COLOR}`, 1, 3)],
  'text-decoration-line': [tokens('none|underline|overline|line-through', 1, 3)],
  'text-indent': capped(tokens(LENGTH), CAPS.spacing),
  'text-transform': [keywords('none', 'capitalize', 'uppercase', 'lowercase')],
  'line-height': capped(keywords('normal', `\\+?${UNSIGNED}`, LENGTH), CAPS.lineHeight),
  'letter-spacing': capped(keywords('normal', LENGTH), CAPS.letterSpacing),
  'white-space': [keywords('normal', 'nowrap', 'pre', 'pre-wrap', 'pre-line')],
  'list-style-type': [keywords('none', 'disc', 'circle', 'square', 'decimal', 'lower-alpha', 'upper-alpha', 'lower-roman', 'upper-roman', 'lower-latin', 'upper-latin')],
  direction: [keywords('ltr', 'rtl')],
  float: [keywords('left', 'right', 'none')],
  display: [keywords('inline', 'block', 'inline-block')],
  margin: capped(box, CAPS.spacing),
  padding: capped(tokens(LENGTH, 1, 4), CAPS.spacing),
  width: capped(lengthOrAuto, CAPS.size),
  height: capped(lengthOrAuto, CAPS.size),
  'max-width': capped(keywords(LENGTH, 'none'), CAPS.size),
  'max-height': capped(keywords(LENGTH, 'none'), CAPS.size),
  'min-width': capped(tokens(LENGTH), CAPS.size),
  'min-height': capped(tokens(LENGTH), CAPS.size),
  border,
  'border-width': capped(tokens(`${LENGTH}|thin|medium|thick`, 1, 4), CAPS.border),
  'border-style': [tokens(BORDER_STYLE, 1, 4)],
  'border-color': [tokens(COLOR, 1, 4)],
  'border-collapse': [keywords('collapse', 'separate')],
  'border-spacing': capped(tokens(LENGTH, 1, 2), CAPS.borderSpacing),
  'border-radius': capped(tokens(LENGTH, 1, 4), CAPS.borderRadius),
};
for (const side of ['top', 'right', 'bottom', 'left']) {
  PROPERTIES[`margin-${side}`] = capped(lengthOrAuto, CAPS.spacing);
  PROPERTIES[`padding-${side}`] = capped(tokens(LENGTH), CAPS.spacing);
  PROPERTIES[`border-${side}`] = border;
}

/** sanitize-html's `allowedStyles`: the same list on every tag. */
export const ALLOWED_STYLES: Record<string, Record<string, RegExp[]>> = { '*': PROPERTIES };
