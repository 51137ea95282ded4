import type { DocumentNode, OperationDefinitionNode } from 'graphql';

/** A document Apollo parsed and validated (token limit, graphql's rules and ours), and the operation a request named in it. */
export interface KnownOperation {
  source: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The operation's own name (null when anonymous), as Apollo resolves it. */
  operationName: string | null;
}

/**
 * The operations Apollo resolved for a (query text, requested operationName) pair, for the fast path
 * (fast-path.ts). Only the parts of Apollo's work that depend on the text alone are remembered: that it
 * parses within the token limit, passes validation (with the document-shape limits) and names this
 * query or mutation. Everything that depends on the caller or the variables runs on every request.
 *
 * Looked up by the query string itself (no key is built from it: the string's hash is computed once,
 * where Apollo hashes every request's text with sha256), then by the requested name (`undefined` and
 * `''` differ, as they do to graphql's getOperationAST). Least recently used texts go first, and the
 * texts held are bounded in number and in total length.
 */
export class KnownOperations {
  private readonly texts = new Map<string, Map<string | undefined, KnownOperation>>();
  private chars = 0;

  constructor(
    private readonly maxTexts = 500,
    private readonly maxChars = 4_000_000,
  ) {}

  find(source: string, requestedName: string | undefined): KnownOperation | undefined {
    const byName = this.texts.get(source);
    if (!byName) return undefined;
    // Most recently used last: the oldest text is the first to go.
    this.texts.delete(source);
    this.texts.set(source, byName);
    return byName.get(requestedName);
  }

  /** Called once Apollo has resolved a request's operation (didResolveOperation): the document is valid. */
  remember(source: string, requestedName: string | undefined, known: Omit<KnownOperation, 'source'>): void {
    if (known.operation.operation === 'subscription' || source.length > this.maxChars) return;
    let byName = this.texts.get(source);
    if (byName?.get(requestedName)?.document === known.document) return;
    if (!byName) {
      this.texts.set(source, (byName = new Map()));
      this.chars += source.length;
      this.evict();
    }
    byName.set(requestedName, { source, ...known });
  }

  private evict(): void {
    while (this.texts.size > this.maxTexts || this.chars > this.maxChars) {
      const oldest = this.texts.keys().next().value!;
      this.texts.delete(oldest);
      this.chars -= oldest.length;
    }
  }

  get size(): number {
    return this.texts.size;
  }
}

/**
 * The response content type Apollo chose for each Accept header value it answered with 200, learned
 * from its own answers: Apollo negotiates it per request (Negotiator) from the Accept header alone, so
 * an Accept value seen once answers the same ever after. A value not yet seen is answered by Apollo
 * (which may refuse it with 406). Bounded: the oldest value is forgotten first.
 */
export class AcceptTypes {
  private readonly learned = new Map<string, string>();

  constructor(private readonly max = 32) {}

  /** `accept`: the request's header, '' when absent or empty (Apollo treats both as absent). */
  get(accept: string): string | undefined {
    return this.learned.get(accept);
  }

  learn(accept: string, contentType: string): void {
    if (this.learned.get(accept) === contentType) return;
    this.learned.delete(accept);
    this.learned.set(accept, contentType);
    if (this.learned.size > this.max) this.learned.delete(this.learned.keys().next().value!);
  }
}
