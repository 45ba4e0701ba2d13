// PostgreSQL's default text-search parser (src/backend/tsearch/wparser_def.c, PostgreSQL License), re-expressed
// in TypeScript: the engine of TParserGet() over the state table of pg-parser-states.ts, so that
// ts_parse('default', text) and parseTokens(text) cut the same tokens of the same types.
// Positions count UTF-16 units (PostgreSQL counts bytes): a character is 1 or 2 units, as it is 1 to 4 bytes there.
// Plain words, numbers and blanks, most of any text, take a shortcut that gives what the table would.

import { isAlphaCode, isSpecialCode } from './charclass.js';
import {
  BINGO,
  CLEAR,
  CLRALL,
  isAsciiAlpha,
  isDigit,
  MERGE,
  POP,
  PUSH,
  RERUN,
  STATES,
  TABLE,
  type CompiledAction,
  type Parser as ParserView,
  type Position,
  type State,
  type TokenType,
} from './pg-parser-states.js';

export type { TokenType } from './pg-parser-states.js';

export interface ParsedToken {
  type: TokenType;
  text: string;
}

/** The table with states as numbers, for speed. */
const STATE_ID = new Map<State, number>(STATES.map((name, id) => [name, id]));
const BASE = STATE_ID.get('Base')!;
const ACTIONS: CompiledAction[][] = STATES.map((name) => TABLE[name].map((x) => ({ ...x, to: x.to === null ? -1 : STATE_ID.get(x.to)! })));

/** The characters after a run of ASCII letters (digits) that make InAsciiWord (InUnsignedInt) try more than a plain word. */
const AFTER_WORD = new Set([...'.-_@:/'].map((ch) => ch.codePointAt(0)!));
const AFTER_INT = new Set([...'.eE-_@/'].map((ch) => ch.codePointAt(0)!));
/** Characters Base tests for before falling back to a blank, and those that end a blank. */
const BASE_SPECIAL = new Set([...'<-+&~/.'].map((ch) => ch.codePointAt(0)!));
const ENDS_BLANK = new Set([...'<-+&/'].map((ch) => ch.codePointAt(0)!));

class Parser implements ParserView {
  state: Position;
  /** The current character (code point), -1 at the end. */
  c = -1;
  ignore = false;
  wanthost = false;
  tokenStart = 0;
  /** Length and type of the last token found. */
  outLen = 0;
  outType: TokenType | null = null;

  constructor(
    readonly source: string,
    start: number,
    initial: State = 'Base',
  ) {
    this.state = { pos: start, charlen: 0, len: 0, state: BASE, prev: null, pushedAt: -1 };
    if (initial !== 'Base') this.state = { ...this.state, state: STATE_ID.get(initial)!, prev: this.state };
  }

  get end(): number {
    return this.source.length;
  }

  /** p_ishost / p_isURLPath: a fresh parser reads on from here; on a host (URL path) token, take it in. */
  subparse(urlPath: boolean): boolean {
    const sub = new Parser(this.source, this.state.pos, urlPath ? 'InURLPathFirst' : 'Base');
    sub.wanthost = !urlPath;
    if (!sub.next() || sub.outType !== (urlPath ? 'url_path' : 'host')) return false;
    this.state.pos += sub.outLen;
    this.state.len += sub.outLen;
    this.state.charlen = sub.state.charlen;
    return true;
  }

  private codeAt(pos: number): number {
    return pos < this.source.length ? this.source.codePointAt(pos)! : -1;
  }

  private emit(type: TokenType, to: number): true {
    this.outType = type;
    this.outLen = to - this.tokenStart;
    this.state.pos = to;
    return true;
  }

  /** A plain ASCII word, unsigned integer or blank from Base, exactly as the table would read it; false if not plain. */
  private shortcut(): boolean {
    const st = this.state;
    if (st.state !== BASE || st.prev !== null || this.ignore) return false;
    let c = this.codeAt(st.pos);
    let pos = st.pos;
    if (isAsciiAlpha(c) || isDigit(c)) {
      const letters = isAsciiAlpha(c);
      const inRun = letters ? isAsciiAlpha : isDigit;
      do c = this.codeAt(++pos);
      while (inRun(c));
      if (c < 0) return this.emit(letters ? 'asciiword' : 'uint', pos);
      if ((letters ? AFTER_WORD : AFTER_INT).has(c) || isDigit(c) || isAlphaCode(c) || isSpecialCode(c)) return false;
      return this.emit(letters ? 'asciiword' : 'uint', pos);
    }
    if (c < 0 || isAlphaCode(c) || BASE_SPECIAL.has(c)) return false;
    pos += c > 0xffff ? 2 : 1;
    for (;;) {
      c = this.codeAt(pos);
      if (c < 0 || ENDS_BLANK.has(c) || isAlphaCode(c) || isDigit(c)) break;
      pos += c > 0xffff ? 2 : 1;
    }
    return this.emit('blank', pos);
  }

  /** TParserGet: reads one token; false at the end of the text. */
  next(): boolean {
    if (this.state.pos >= this.end) return false;
    this.tokenStart = this.state.pos;
    if (this.shortcut()) return true;
    this.state.pushedAt = -1;
    let item: CompiledAction | null = null;
    const end = this.end;
    while (this.state.pos <= end) {
      let st = this.state;
      this.c = this.codeAt(st.pos);
      st.charlen = this.c < 0 ? 0 : this.c > 0xffff ? 2 : 1;
      const actions = ACTIONS[st.state]!;
      let i = st.pushedAt >= 0 ? st.pushedAt + 1 : 0;
      st.pushedAt = -1;
      while (actions[i]!.test && !actions[i]!.test!(this)) i += 1;
      item = actions[i]!;
      item.special?.(this);
      st = this.state;
      if (item.flags & BINGO) {
        this.outLen = st.len;
        st.len = 0;
        this.outType = item.type;
      }
      if (item.flags & POP) {
        this.state = st.prev!;
      } else if (item.flags & PUSH) {
        st.pushedAt = i;
        this.state = { pos: st.pos, charlen: st.charlen, len: st.len, state: st.state, prev: st, pushedAt: -1 };
      } else if (item.flags & CLEAR) {
        st.prev = st.prev!.prev;
      } else if (item.flags & CLRALL) {
        st.prev = null;
      } else if (item.flags & MERGE) {
        const prev = st.prev!;
        prev.pos = st.pos;
        prev.charlen = st.charlen;
        prev.len = st.len;
        this.state = prev;
      }
      if (item.to >= 0) this.state.state = item.to;
      if (item.flags & BINGO || (this.state.pos >= end && !(item.flags & RERUN))) break;
      if (item.flags & (RERUN | POP)) continue;
      if (this.state.charlen) {
        this.state.pos += this.state.charlen;
        this.state.len += this.state.charlen;
      }
    }
    return item !== null && (item.flags & BINGO) !== 0;
  }
}

/** The tokens of a text, as ts_parse('default', text) gives them. */
export function* parseTokens(text: string): Generator<ParsedToken> {
  const parser = new Parser(text, 0);
  while (parser.next()) yield { type: parser.outType!, text: text.slice(parser.tokenStart, parser.tokenStart + parser.outLen) };
}
