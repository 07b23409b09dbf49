/**
 * Whether a YAML text nests too deep for the `yaml` library's composer, found before the composer
 * sees it. The composer recurses once per collection level; at about 780 levels it overflows the
 * stack, and an overflow there can take the whole process down (V8 aborts when a regular expression
 * is compiled on an exhausted stack). The library's lexer and CST parser are iterative, so the CST
 * is built here token by token:
 *
 * - while it is built, the open collections (`Parser.stack`) are watched, so a body of a million
 *   `[` is refused after a few hundred tokens rather than read to the end;
 * - each finished document's CST is then measured without recursion, which is exact: a collection
 *   can also nest by becoming the key of a block mapping after it was closed (`[[…]]: v`).
 *
 * The CST's nesting is the composer's, errors and all (it builds a tree even from invalid text).
 */
import { Lexer, Parser, type CST } from 'yaml';

type Collection = CST.BlockMap | CST.BlockSequence | CST.FlowCollection;

function isCollection(token: CST.Token): token is Collection {
  return (
    token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection'
  );
}

/** True when the text nests more than `maxDepth` collections (mappings and sequences) deep. */
export function yamlNestsDeeper(text: string, maxDepth: number): boolean {
  const parser = new Parser();
  for (const lexeme of new Lexer().lex(text)) {
    for (const document of parser.next(lexeme)) {
      if (cstDepth(document, maxDepth) > maxDepth) return true;
    }
    // the stack is the document, the open collections and at most a token or two more
    if (parser.stack.length > maxDepth + 1 && parser.stack.filter(isCollection).length > maxDepth)
      return true;
  }
  for (const document of parser.end()) {
    if (cstDepth(document, maxDepth) > maxDepth) return true;
  }
  return false;
}

/** The collection depth of a CST token, counted with a stack of its own; stops past `limit`. */
function cstDepth(root: CST.Token, limit: number): number {
  let deepest = 0;
  const pending: { token: CST.Token; depth: number }[] = [{ token: root, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { token, depth } = next;
    if (token.type === 'document') {
      if (token.value !== undefined) pending.push({ token: token.value, depth });
      continue;
    }
    if (!isCollection(token)) continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const item of token.items) {
      const { key, value } = item as { key?: CST.Token | null; value?: CST.Token | null };
      if (key !== undefined && key !== null) pending.push({ token: key, depth: inner });
      if (value !== undefined && value !== null) pending.push({ token: value, depth: inner });
    }
  }
  return deepest;
}
