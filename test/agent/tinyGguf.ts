// Writes a tiny llama-architecture GGUF model with seeded random weights, so the
// `local` provider can be tested (and benchmarked) with the real node-llama-cpp and
// llama.cpp on a machine that cannot download a real model.
//
// GGUF v3 (ggml's docs/gguf.md): "GGUF", version, tensor count, key-value count; the
// key-value metadata (typed); one info record per tensor (name, dimensions, type,
// offset into the data section); padding to the alignment; the tensor data.
// The tokenizer is a SentencePiece-style "llama" vocabulary of single characters
// (every printable ASCII character, and "▁" for the space), enough for any JSON the
// grammar asks for; characters outside it become <unk>.
import fs from "node:fs";

const ALIGN = 32;
const T = { U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
type KV =
  | [string, "u32" | "f32" | "str" | "bool", number | string | boolean]
  | [string, "arr", "str" | "f32" | "i32", Array<string | number>];

export interface TinyModelOptions {
  seed?: number;
  layers?: number;
  embd?: number;
  heads?: number;
  ff?: number;
  contextLength?: number;
  /** Jinja chat template to store (tokenizer.chat_template); absent: none. */
  chatTemplate?: string;
}

/** A seeded xorshift32 generator of floats in [-1, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 31 - 1;
  };
}

/**
 * The vocabulary: <unk>, <s>, </s>, the 256 byte tokens "<0x00>".."<0xFF>" (SentencePiece's
 * byte fallback: llama.cpp needs "<0x0A>" for the newline and the others for any character
 * outside the vocabulary), "▁", then every printable ASCII character except the space.
 */
export function tinyVocabulary(): string[] {
  const bytes: string[] = [];
  for (let b = 0; b < 256; b++) bytes.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
  const chars: string[] = [];
  for (let c = 33; c < 127; c++) chars.push(String.fromCharCode(c));
  return ["<unk>", "<s>", "</s>", ...bytes, "\u2581", ...chars];
}
const BYTE_TOKENS = { first: 3, last: 258 };

function str(s: string): Buffer {
  const b = Buffer.from(s, "utf8");
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(b.length));
  return Buffer.concat([len, b]);
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const i32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
};
const f32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

function kvBytes(kv: KV): Buffer {
  const [key, kind] = kv;
  const parts = [str(key)];
  if (kind === "arr") {
    const [, , elem, values] = kv as [string, "arr", "str" | "f32" | "i32", Array<string | number>];
    const et = elem === "str" ? T.STRING : elem === "f32" ? T.F32 : T.I32;
    parts.push(u32(T.ARRAY), u32(et), u64(values.length));
    for (const v of values)
      parts.push(elem === "str" ? str(String(v)) : elem === "f32" ? f32(Number(v)) : i32(Number(v)));
  } else {
    const v = kv[2];
    if (kind === "u32") parts.push(u32(T.U32), u32(Number(v)));
    else if (kind === "f32") parts.push(u32(T.F32), f32(Number(v)));
    else if (kind === "bool") parts.push(u32(T.BOOL), Buffer.from([v ? 1 : 0]));
    else parts.push(u32(T.STRING), str(String(v)));
  }
  return Buffer.concat(parts);
}

/** Writes the model to `file`; returns its size in bytes. */
export function writeTinyGguf(file: string, o: TinyModelOptions = {}): number {
  const layers = o.layers ?? 2;
  const embd = o.embd ?? 64;
  const heads = o.heads ?? 4;
  const ff = o.ff ?? 128;
  const ctx = o.contextLength ?? 16384;
  const vocab = tinyVocabulary();
  const nv = vocab.length;
  const rand = rng(o.seed ?? 1);

  const kvs: KV[] = [
    ["general.architecture", "str", "llama"],
    ["general.name", "str", "rt-tiny-test"],
    ["general.alignment", "u32", ALIGN],
    ["llama.context_length", "u32", ctx],
    ["llama.embedding_length", "u32", embd],
    ["llama.block_count", "u32", layers],
    ["llama.feed_forward_length", "u32", ff],
    ["llama.attention.head_count", "u32", heads],
    ["llama.attention.head_count_kv", "u32", heads],
    ["llama.attention.layer_norm_rms_epsilon", "f32", 1e-5],
    ["llama.rope.dimension_count", "u32", embd / heads],
    ["llama.vocab_size", "u32", nv],
    ["tokenizer.ggml.model", "str", "llama"],
    ["tokenizer.ggml.tokens", "arr", "str", vocab],
    // Scores only order merges; single characters never merge, so all are equal.
    ["tokenizer.ggml.scores", "arr", "f32", vocab.map(() => 0)],
    // 1 normal, 2 unknown, 3 control, 6 byte.
    [
      "tokenizer.ggml.token_type",
      "arr",
      "i32",
      vocab.map((_, i) => (i === 0 ? 2 : i < 3 ? 3 : i <= BYTE_TOKENS.last ? 6 : 1)),
    ],
    ["tokenizer.ggml.unknown_token_id", "u32", 0],
    ["tokenizer.ggml.bos_token_id", "u32", 1],
    ["tokenizer.ggml.eos_token_id", "u32", 2],
    ["tokenizer.ggml.add_bos_token", "bool", true],
    ...(o.chatTemplate ? ([["tokenizer.chat_template", "str", o.chatTemplate]] as KV[]) : []),
  ];

  // ggml dimension order: ne0 is the row length (the input size of a weight matrix).
  const tensors: Array<{ name: string; dims: number[]; scale: number }> = [
    { name: "token_embd.weight", dims: [embd, nv], scale: 0.5 },
    { name: "output_norm.weight", dims: [embd], scale: 0 },
    { name: "output.weight", dims: [embd, nv], scale: 0.5 },
  ];
  for (let l = 0; l < layers; l++) {
    const b = `blk.${l}.`;
    tensors.push(
      { name: `${b}attn_norm.weight`, dims: [embd], scale: 0 },
      { name: `${b}attn_q.weight`, dims: [embd, embd], scale: 0.2 },
      { name: `${b}attn_k.weight`, dims: [embd, embd], scale: 0.2 },
      { name: `${b}attn_v.weight`, dims: [embd, embd], scale: 0.2 },
      { name: `${b}attn_output.weight`, dims: [embd, embd], scale: 0.2 },
      { name: `${b}ffn_norm.weight`, dims: [embd], scale: 0 },
      { name: `${b}ffn_gate.weight`, dims: [embd, ff], scale: 0.2 },
      { name: `${b}ffn_up.weight`, dims: [embd, ff], scale: 0.2 },
      { name: `${b}ffn_down.weight`, dims: [ff, embd], scale: 0.2 },
    );
  }

  const header = [Buffer.from("GGUF"), u32(3), u64(tensors.length), u64(kvs.length), ...kvs.map(kvBytes)];
  const datas: Buffer[] = [];
  let offset = 0;
  for (const t of tensors) {
    const n = t.dims.reduce((a, b) => a * b, 1);
    const data = Buffer.alloc(n * 4);
    // Norm weights are 1 (scale 0 means "ones"); the others seeded uniform in [-scale, scale).
    for (let i = 0; i < n; i++) data.writeFloatLE(t.scale === 0 ? 1 : rand() * t.scale, i * 4);
    header.push(str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(0 /* F32 */), u64(offset));
    const padded = Math.ceil(data.length / ALIGN) * ALIGN;
    datas.push(data, Buffer.alloc(padded - data.length));
    offset += padded;
  }
  let head = Buffer.concat(header);
  head = Buffer.concat([head, Buffer.alloc(Math.ceil(head.length / ALIGN) * ALIGN - head.length)]);
  const all = Buffer.concat([head, ...datas]);
  fs.writeFileSync(file, all);
  return all.length;
}
