/**
 * The inline styles user HTML keeps: formatting an editor produces (colours, alignment, fonts, spacing,
 * sizes, borders), each property with a value pattern. A value matches as a whole, case-insensitively,
 * and is made of plain tokens only: no `url(`, `expression(`, `javascript:`, escapes, comments or
 * `var(`, so a style can neither load anything nor run anything. Layout escapes (position, z-index,
 * background images) are not in the list, so a post cannot cover the page around it.
 */
const NUM = String.raw`[-+]?(?:\d+|\d*\.\d+)`;
const LENGTH = String.raw`(?:0|${NUM}(?:px|em|rem|%|pt|pc|cm|mm|in|ex|ch|vw|vh|vmin|vmax))`;
// Named colours (and transparent, currentcolor) are single words; the functions take numbers only.
const COLOR = String.raw`(?:#[0-9a-f]{3,8}|(?:rgba?|hsla?)\(\s*${NUM}(?:%|deg)?(?:\s*[,/]?\s*${NUM}%?){2,3}\s*\)|[a-z]{3,20})`;
const BORDER_STYLE = 'none|hidden|solid|dashed|dotted|double|groove|ridge|inset|outset';

/** `count` space-separated tokens (from `min` to `max`), each one of the alternatives. */
function tokens(alternatives: string, min = 1, max = 1): RegExp {
  const one = `(?:${alternatives})`;
  return new RegExp(`^${one}(?:\\s+${one}){${min - 1},${max - 1}}$`, 'i');
}

const keywords = (...words: string[]) => tokens(words.join('|'));
const lengthOrAuto = tokens(`${LENGTH}|auto`);
const box = tokens(`${LENGTH}|auto`, 1, 4);
const border = tokens(`${LENGTH}|thin|medium|thick|${BORDER_STYLE}|${COLOR}`, 1, 3);
const color = tokens(COLOR);

const PROPERTIES: Record<string, RegExp[]> = {
  color: [color],
  'background-color': [color],
  'text-align': [keywords('left', 'right', 'center', 'justify', 'start', 'end')],
  'vertical-align': [keywords('baseline', 'top', 'middle', 'bottom', 'sub', 'super', 'text-top', 'text-bottom', LENGTH)],
  'font-size': [keywords(LENGTH, 'xx-small', 'x-small', 'small', 'medium', 'large', 'x-large', 'xx-large', 'smaller', 'larger')],
  'font-weight': [keywords('normal', 'bold', 'bolder', 'lighter', '[1-9]00')],
  'font-style': [keywords('normal', 'italic', 'oblique')],
  // Family names, quoted or not, separated by commas (quotes are escaped when the attribute is written).
  'font-family': [/^[a-z0-9 ,'"-]{1,200}$/i],
  'text-decoration': [tokens(`none|underline|overline|line-through|solid|double|dotted|dashed|wavy|${COLOR}`, 1, 3)],
  'text-decoration-line': [tokens('none|underline|overline|line-through', 1, 3)],
  'text-indent': [tokens(LENGTH)],
  'text-transform': [keywords('none', 'capitalize', 'uppercase', 'lowercase')],
  'line-height': [keywords('normal', NUM, LENGTH)],
  'letter-spacing': [keywords('normal', LENGTH)],
  'white-space': [keywords('normal', 'nowrap', 'pre', 'pre-wrap', 'pre-line')],
  'list-style-type': [keywords('none', 'disc', 'circle', 'square', 'decimal', 'lower-alpha', 'upper-alpha', 'lower-roman', 'upper-roman', 'lower-latin', 'upper-latin')],
  direction: [keywords('ltr', 'rtl')],
  float: [keywords('left', 'right', 'none')],
  display: [keywords('inline', 'block', 'inline-block')],
  margin: [box],
  padding: [box],
  width: [lengthOrAuto],
  height: [lengthOrAuto],
  'max-width': [keywords(LENGTH, 'none')],
  'max-height': [keywords(LENGTH, 'none')],
  'min-width': [tokens(LENGTH)],
  'min-height': [tokens(LENGTH)],
  border: [border],
  'border-width': [tokens(`${LENGTH}|thin|medium|thick`, 1, 4)],
  'border-style': [tokens(BORDER_STYLE, 1, 4)],
  'border-color': [tokens(COLOR, 1, 4)],
  'border-collapse': [keywords('collapse', 'separate')],
  'border-spacing': [tokens(LENGTH, 1, 2)],
  'border-radius': [tokens(LENGTH, 1, 4)],
};
for (const side of ['top', 'right', 'bottom', 'left']) {
  PROPERTIES[`margin-${side}`] = [lengthOrAuto];
  PROPERTIES[`padding-${side}`] = [tokens(LENGTH)];
  PROPERTIES[`border-${side}`] = [border];
}

/** sanitize-html's `allowedStyles`: the same list on every tag. */
export const ALLOWED_STYLES: Record<string, Record<string, RegExp[]>> = { '*': PROPERTIES };
