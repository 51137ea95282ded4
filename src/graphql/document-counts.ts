import { DocumentNode, FragmentDefinitionNode, Kind, OperationDefinitionNode, SelectionSetNode } from 'graphql';

/**
 * Counts over a document with its fragments expanded, so fragments cannot hide repeats from the limits:
 * a field repeated under aliases in inline fragments
 * (`... on Mutation { a1: f }  ... on Mutation { a2: f }`) or in named fragments is selected in the
 * same place as if written side by side, so it counts the same. Fragments are expanded by counting: each fragment's contribution is computed once and
 * multiplied by its spreads, so a document that spreads fragments into fragments cannot make the count
 * itself expensive.
 */

/** The fields a selection set selects in one place, fragments flattened: name -> how often, how often aliased. */
interface Flat {
  fields: Map<string, { n: number; aliased: number }>;
  /** Repeated aliases inside the selected fields' own selection sets. */
  nested: number;
}

export class DocumentCounts {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly memo = new Map<string, Flat>();
  private readonly active = new Set<string>();

  constructor(document: DocumentNode) {
    for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(def.name.value, def);
  }

  /**
   * Fields selected again under another alias where they are already selected, document-wide.
   * Renaming a field once (`course_code: courseCode`) is free: the first selection of a name is.
   */
  repeatedAliases(operations: readonly OperationDefinitionNode[]): number {
    let total = 0;
    for (const op of operations) total += repeats(this.flat(op.selectionSet));
    return total;
  }

  /** Root fields an operation selects (only those named, if given), fragments expanded; meta fields such as __typename aside. */
  rootFields(op: OperationDefinitionNode, only?: ReadonlySet<string>): number {
    let total = 0;
    for (const [name, f] of this.flat(op.selectionSet).fields) if (!name.startsWith('__') && (!only || only.has(name))) total += f.n;
    return total;
  }

  private flat(set: SelectionSetNode): Flat {
    const out: Flat = { fields: new Map(), nested: 0 };
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        add(out, sel.name.value, 1, sel.alias ? 1 : 0);
        if (sel.selectionSet) out.nested += repeats(this.flat(sel.selectionSet));
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        merge(out, this.flat(sel.selectionSet), 1);
      } else {
        const frag = this.fragmentFlat(sel.name.value);
        if (frag) merge(out, frag, 1);
      }
    }
    return out;
  }

  private fragmentFlat(name: string): Flat | undefined {
    const known = this.memo.get(name);
    if (known) return known;
    const frag = this.fragments.get(name);
    // Unknown and cyclic fragments are reported by graphql's own rules; they add nothing here.
    if (!frag || this.active.has(name)) return undefined;
    this.active.add(name);
    const flat = this.flat(frag.selectionSet);
    this.active.delete(name);
    this.memo.set(name, flat);
    return flat;
  }
}

function add(out: Flat, name: string, n: number, aliased: number): void {
  const f = out.fields.get(name);
  if (f) {
    f.n += n;
    f.aliased += aliased;
  } else out.fields.set(name, { n, aliased });
}

function merge(out: Flat, from: Flat, times: number): void {
  for (const [name, f] of from.fields) add(out, name, f.n * times, f.aliased * times);
  out.nested += from.nested * times;
}

/** Selections of a name beyond its first that carry an alias, plus those nested deeper. */
function repeats(flat: Flat): number {
  let count = flat.nested;
  for (const f of flat.fields.values()) if (f.n > 1) count += Math.min(f.aliased, f.n - 1);
  return count;
}
