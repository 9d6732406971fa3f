// A file's outline (classes, functions, methods, types...) from its tree-sitter
// tree, for every language rt parses. Each language names the node types that
// define something and what kind of definition they are; the name comes from
// the node's `name` field (or the one place a grammar keeps it elsewhere: C's
// declarator chain, Go's type_spec, Rust's impl type, JS's `const f = () =>`).
// Data formats (JSON, YAML, TOML) outline their top-level keys, CSS its rule
// sets, HTML its elements that carry an id.
import { parse, type LanguageId, type SyntaxNode } from "./treeSitter.js";

export interface OutlineSymbol {
  /** class, function, method, interface, type, enum, struct, trait, impl, module, namespace, key, rule, element... */
  kind: string;
  name: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Nesting depth: 0 at the top of the file. */
  depth: number;
  /** The enclosing symbols' names, outermost first ("Foo" for Foo.bar). */
  container: string[];
  /** The definition's first line, trimmed. */
  signature: string;
}

type Rule = string | ((node: SyntaxNode, insideType: boolean) => string | null);

const functionOrMethod: Rule = (_n, insideType) => (insideType ? "method" : "function");

const JS_RULES: Record<string, Rule> = {
  class_declaration: "class",
  abstract_class_declaration: "class",
  function_declaration: "function",
  generator_function_declaration: "function",
  method_definition: "method",
  abstract_method_signature: "method",
  method_signature: "method",
  interface_declaration: "interface",
  type_alias_declaration: "type",
  enum_declaration: "enum",
  internal_module: "namespace",
  module: "module",
  variable_declarator: (n) => {
    const value = n.childForFieldName("value");
    if (value && /^(arrow_function|function_expression|function|generator_function)$/.test(value.type))
      return "function";
    // An exported constant (a tool, a schema, a table) is a definition other files use.
    return n.parent?.parent?.type === "export_statement"
      ? n.parent.firstChild?.text === "const"
        ? "const"
        : "variable"
      : null;
  },
};

const C_RULES: Record<string, Rule> = {
  function_definition: functionOrMethod,
  struct_specifier: (n) => (n.childForFieldName("body") ? "struct" : null),
  union_specifier: (n) => (n.childForFieldName("body") ? "union" : null),
  enum_specifier: (n) => (n.childForFieldName("body") ? "enum" : null),
};

const RULES: Partial<Record<LanguageId, Record<string, Rule>>> = {
  python: { class_definition: "class", function_definition: functionOrMethod },
  javascript: JS_RULES,
  typescript: JS_RULES,
  tsx: JS_RULES,
  go: { function_declaration: "function", method_declaration: "method", type_spec: (n) => typeSpecKind(n) },
  rust: {
    function_item: functionOrMethod,
    function_signature_item: "method",
    struct_item: "struct",
    enum_item: "enum",
    union_item: "union",
    trait_item: "trait",
    impl_item: "impl",
    mod_item: "module",
    macro_definition: "macro",
    type_item: "type",
  },
  java: {
    class_declaration: "class",
    interface_declaration: "interface",
    enum_declaration: "enum",
    record_declaration: "record",
    annotation_type_declaration: "interface",
    method_declaration: "method",
    constructor_declaration: "constructor",
  },
  csharp: {
    class_declaration: "class",
    interface_declaration: "interface",
    struct_declaration: "struct",
    enum_declaration: "enum",
    record_declaration: "record",
    namespace_declaration: "namespace",
    file_scoped_namespace_declaration: "namespace",
    method_declaration: "method",
    constructor_declaration: "constructor",
    property_declaration: "property",
  },
  c: C_RULES,
  cpp: {
    ...C_RULES,
    class_specifier: (n) => (n.childForFieldName("body") ? "class" : null),
    namespace_definition: "namespace",
  },
  ruby: { class: "class", module: "module", method: functionOrMethod, singleton_method: "method" },
  php: {
    class_declaration: "class",
    interface_declaration: "interface",
    trait_declaration: "trait",
    enum_declaration: "enum",
    function_definition: "function",
    method_declaration: "method",
  },
  bash: { function_definition: "function" },
  css: { rule_set: "rule", media_statement: "media", keyframes_statement: "keyframes" },
};

/** Kinds whose members are methods, not functions. */
const TYPE_KINDS = new Set(["class", "interface", "struct", "trait", "impl", "record", "enum"]);

function typeSpecKind(n: SyntaxNode): string {
  const t = n.childForFieldName("type")?.type;
  return t === "struct_type" ? "struct" : t === "interface_type" ? "interface" : "type";
}

/** The name of a definition node, or null when it has none worth listing. */
function nameOf(node: SyntaxNode, lang: LanguageId, text: string): string | null {
  if (lang === "rust" && node.type === "impl_item") {
    const type = node.childForFieldName("type")?.text;
    const trait = node.childForFieldName("trait")?.text;
    return type ? (trait ? `${trait} for ${type}` : type) : null;
  }
  if (lang === "css") {
    if (node.type === "rule_set")
      return node.namedChildren.find((c) => c?.type === "selectors")?.text.replace(/\s+/g, " ") ?? null;
    return firstLine(node, text).replace(/\s*\{.*$/, "");
  }
  if (node.type === "function_definition" && (lang === "c" || lang === "cpp"))
    return declaratorName(node.childForFieldName("declarator"));
  const named = node.childForFieldName("name");
  if (named) return named.text;
  return null;
}

/** C/C++: the identifier at the end of a declarator chain (pointer, function, reference declarators). */
function declaratorName(node: SyntaxNode | null): string | null {
  let d = node;
  for (let guard = 0; d && guard < 16; guard++) {
    const inner = d.childForFieldName("declarator");
    if (!inner) return /identifier|qualified|destructor|operator_name/.test(d.type) ? d.text : null;
    d = inner;
  }
  return null;
}

function firstLine(node: SyntaxNode, text: string): string {
  const from = node.startIndex;
  const nl = text.indexOf("\n", from);
  const end = nl === -1 || nl > node.endIndex ? node.endIndex : nl;
  const line = text.slice(from, end).trim();
  return line.length > SIGNATURE_MAX_CHARS ? `${line.slice(0, SIGNATURE_MAX_CHARS)}…` : line;
}

const SIGNATURE_MAX_CHARS = 120;

/** The outline of `text` written in `lang`; null when the parse gave up (timeout). */
export async function outline(text: string, lang: LanguageId, timeoutMs?: number): Promise<OutlineSymbol[] | null> {
  const tree = await parse(text, lang, timeoutMs === undefined ? {} : { timeoutMs });
  if (!tree) return null;
  try {
    const out: OutlineSymbol[] = [];
    if (lang === "json" || lang === "yaml" || lang === "toml") dataKeys(tree.rootNode, lang, text, out);
    else if (lang === "html") htmlIds(tree.rootNode, text, out);
    else walk(tree.rootNode, lang, text, RULES[lang] ?? {}, [], false, out);
    return out;
  } finally {
    tree.delete();
  }
}

function symbolOf(node: SyntaxNode, kind: string, name: string, container: string[], text: string): OutlineSymbol {
  // A `const f = () => {}` declarator starts after `const`: the definition is its whole statement.
  const span = node.type === "variable_declarator" && node.parent?.namedChildCount === 1 ? node.parent : node;
  // Its export, decorators or Go `type` keyword belong to it too (the signature stays the definition's own line).
  const wrapper = span.parent?.type;
  const outer =
    wrapper === "export_statement" ||
    wrapper === "decorated_definition" ||
    (wrapper === "type_declaration" && span.parent!.namedChildCount === 1)
      ? span.parent!
      : span;
  return {
    kind,
    name,
    startLine: outer.startPosition.row + 1,
    endLine: lastCodeRow(outer) + 1,
    depth: container.length,
    container: [...container],
    signature: firstLine(outer.type === "decorated_definition" ? span : outer, text),
  };
}

/**
 * The row of the definition's last token that is not a comment: some grammars
 * (Python's) keep the comments after a block's last statement inside it, which
 * would stretch a function over the comment that introduces the next one.
 */
function lastCodeRow(node: SyntaxNode): number {
  let n = node;
  for (;;) {
    let last: SyntaxNode | null = null;
    for (let i = n.childCount - 1; i >= 0; i--) {
      const c = n.child(i);
      if (c && c.type !== "comment" && c.endIndex > c.startIndex) {
        last = c;
        break;
      }
    }
    if (!last) break;
    n = last;
  }
  const end = n.endPosition;
  // A node that ends with its line's newline ends on the line before.
  return end.column === 0 && end.row > node.startPosition.row ? end.row - 1 : end.row;
}

function walk(
  node: SyntaxNode,
  lang: LanguageId,
  text: string,
  rules: Record<string, Rule>,
  container: string[],
  insideType: boolean,
  out: OutlineSymbol[],
): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    const rule = rules[child.type];
    const kind = rule === undefined ? null : typeof rule === "string" ? rule : rule(child, insideType);
    const name = kind ? nameOf(child, lang, text) : null;
    if (kind && name) {
      out.push(symbolOf(child, kind, name, container, text));
      // Inside a function, only nested types and functions are listed (not its local variables' arrow functions).
      walk(
        child,
        lang,
        text,
        rules,
        [...container, name],
        TYPE_KINDS.has(kind) || (lang === "ruby" && kind === "module"),
        out,
      );
    } else {
      walk(child, lang, text, rules, container, insideType && !/function|method|lambda/.test(child.type), out);
    }
  }
}

/** JSON, YAML, TOML: the top-level keys (and TOML tables), one level deep. */
function dataKeys(root: SyntaxNode, lang: LanguageId, text: string, out: OutlineSymbol[]): void {
  const push = (node: SyntaxNode, keyNode: SyntaxNode | null, kind: string) => {
    if (!keyNode) return;
    const name = keyNode.text.replace(/^["']|["']$/g, "");
    out.push({ ...symbolOf(node, kind, name, [], text), depth: 0, container: [] });
  };
  if (lang === "toml") {
    for (const c of root.namedChildren) {
      if (!c) continue;
      if (c.type === "pair") push(c, c.namedChildren[0], "key");
      else if (c.type === "table" || c.type === "table_array_element") push(c, c.namedChildren[0], "table");
    }
    return;
  }
  // The first mapping/object of the document holds the top-level keys.
  const pairType = lang === "json" ? "pair" : "block_mapping_pair";
  const holder = findFirst(root, lang === "json" ? "object" : "block_mapping");
  if (!holder) return;
  for (const c of holder.namedChildren) if (c?.type === pairType) push(c, c.childForFieldName("key"), "key");
}

function findFirst(node: SyntaxNode, type: string): SyntaxNode | null {
  if (node.type === type) return node;
  for (const c of node.namedChildren) {
    const found = c ? findFirst(c, type) : null;
    if (found) return found;
  }
  return null;
}

/** HTML: the elements that carry an id (the document's landmarks), as tag#id. */
function htmlIds(node: SyntaxNode, text: string, out: OutlineSymbol[]): void {
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === "element" || c.type === "script_element" || c.type === "style_element") {
      const start = c.namedChildren.find((x) => x?.type === "start_tag" || x?.type === "self_closing_tag");
      const tag = start?.namedChildren.find((x) => x?.type === "tag_name")?.text;
      for (const attr of start?.namedChildren ?? []) {
        if (attr?.type !== "attribute") continue;
        const [name, value] = attr.namedChildren;
        if (name?.text === "id" && value) {
          const id = value.text.replace(/^["']|["']$/g, "");
          out.push({ ...symbolOf(c, "element", `${tag ?? "element"}#${id}`, [], text) });
        }
      }
    }
    htmlIds(c, text, out);
  }
}
