// The state table of PostgreSQL's default text-search parser (src/backend/tsearch/wparser_def.c, PostgreSQL
// License), transcribed state by state; pg-parser.ts runs it. Each state is a list of actions tried in order: the
// first whose test accepts the current character applies. PUSH saves the position (to come back to the next action
// of this state if the attempt fails, POP), CLEAR and CLRALL forget saved positions, BINGO emits the token read so
// far, RERUN re-reads the current character. Character classes are those of a UTF-8 database with a C.UTF-8 ctype.

import { isAlphaCode, isSpaceCode, isSpecialCode } from './charclass.js';

export type TokenType =
  | 'asciiword' | 'word' | 'numword' | 'email' | 'url' | 'host' | 'sfloat' | 'version' | 'hword_numpart'
  | 'hword_part' | 'hword_asciipart' | 'blank' | 'tag' | 'protocol' | 'numhword' | 'asciihword' | 'hword'
  | 'url_path' | 'file' | 'float' | 'int' | 'uint' | 'entity';

export const NEXT = 0, BINGO = 1, POP = 2, PUSH = 4, RERUN = 8, CLEAR = 16, MERGE = 32, CLRALL = 64;

export interface Position {
  pos: number;
  /** Length of the current character: 0 at the end of the text, else 1 or 2. */
  charlen: number;
  /** Length of the token so far. */
  len: number;
  /** Index of the state in STATES. */
  state: number;
  prev: Position | null;
  /** Index of the action that pushed this position, to resume after it on POP; -1 if none. */
  pushedAt: number;
}

export const STATES = [
  'Base', 'InNumWord', 'InAsciiWord', 'InWord', 'InUnsignedInt', 'InSignedIntFirst',
  'InSignedInt', 'InSpace', 'InUDecimalFirst', 'InUDecimal', 'InDecimalFirst', 'InDecimal',
  'InVerVersion', 'InSVerVersion', 'InVersionFirst', 'InVersion', 'InMantissaFirst', 'InMantissaSign',
  'InMantissa', 'InXMLEntityFirst', 'InXMLEntity', 'InXMLEntityNumFirst', 'InXMLEntityHexNumFirst', 'InXMLEntityNum',
  'InXMLEntityHexNum', 'InXMLEntityEnd', 'InTagFirst', 'InXMLBegin', 'InTagCloseFirst', 'InTagName',
  'InTagBeginEnd', 'InTag', 'InTagEscapeK', 'InTagEscapeKK', 'InTagBackSleshed', 'InTagEnd',
  'InCommentFirst', 'InCommentLast', 'InComment', 'InCloseCommentFirst', 'InCloseCommentLast', 'InCommentEnd',
  'InHostFirstDomain', 'InHostDomainSecond', 'InHostDomain', 'InPortFirst', 'InPort', 'InHostFirstAN',
  'InHost', 'InEmail', 'InFileFirst', 'InFileTwiddle', 'InPathFirst', 'InPathFirstFirst',
  'InPathSecond', 'InFile', 'InFileNext', 'InURLPathFirst', 'InURLPathStart', 'InURLPath',
  'InFURL', 'InProtocolFirst', 'InProtocolSecond', 'InProtocolEnd', 'InHyphenAsciiWordFirst', 'InHyphenAsciiWord',
  'InHyphenWordFirst', 'InHyphenWord', 'InHyphenNumWordFirst', 'InHyphenNumWord', 'InHyphenDigitLookahead', 'InParseHyphen',
  'InParseHyphenHyphen', 'InHyphenWordPart', 'InHyphenAsciiWordPart', 'InHyphenNumWordPart', 'InHyphenUnsignedInt',
] as const;
export type State = (typeof STATES)[number];

/** What the tests and special actions see of the parser. */
export interface Parser {
  state: Position;
  /** The current character (code point), -1 at the end. */
  c: number;
  ignore: boolean;
  wanthost: boolean;
  tokenStart: number;
  readonly source: string;
  readonly end: number;
  /** p_ishost / p_isURLPath: whether a host (a URL path) starts here; if so it is taken into the token. */
  subparse(urlPath: boolean): boolean;
}

type Test = (p: Parser) => boolean;
type Special = (p: Parser) => void;
export interface Action {
  test: Test | null;
  flags: number;
  to: State | null;
  type: TokenType | null;
  special: Special | null;
}
export interface CompiledAction extends Omit<Action, 'to'> {
  to: number;
}

export const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
export const isAsciiAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isXDigit = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const URL_FORBIDDEN = new Set([...'"<>\\^`{|}'].map((ch) => ch.codePointAt(0)!));

const cur = (p: Parser) => p.c;
const T = {
  eof: (p: Parser) => p.state.pos >= p.end,
  alpha: (p: Parser) => isAlphaCode(cur(p)),
  digit: (p: Parser) => isDigit(cur(p)),
  alnum: (p: Parser) => isAlphaCode(cur(p)) || isDigit(cur(p)),
  notalnum: (p: Parser) => !(isAlphaCode(cur(p)) || isDigit(cur(p))),
  space: (p: Parser) => isSpaceCode(cur(p)),
  xdigit: (p: Parser) => isXDigit(cur(p)),
  asclet: (p: Parser) => isAsciiAlpha(cur(p)),
  special: (p: Parser) => isSpecialCode(cur(p)),
  urlchar: (p: Parser) => {
    const c = cur(p);
    return c > 0x20 && c < 0x7f && !URL_FORBIDDEN.has(c);
  },
  ignore: (p: Parser) => p.ignore,
  stophost: (p: Parser) => {
    if (!p.wanthost) return false;
    p.wanthost = false;
    return true;
  },
  host: (p: Parser) => p.subparse(false),
  urlpath: (p: Parser) => p.subparse(true),
};
const eqTests = new Map<string, Test>();
function eq(ch: string): Test {
  let test = eqTests.get(ch);
  if (!test) {
    const code = ch.codePointAt(0)!;
    eqTests.set(ch, (test = (p: Parser) => cur(p) === code));
  }
  return test;
}

const S = {
  tags: (p: Parser) => {
    // pg_strncasecmp: ASCII letters only are folded.
    const name = p.source.slice(p.tokenStart, p.tokenStart + p.state.len).replace(/[A-Z]/g, (ch) => ch.toLowerCase());
    if (name === '</script' || name === '</style') p.ignore = false;
    else if (name === '<script' || name === '<style') p.ignore = true;
  },
  furl: (p: Parser) => {
    p.wanthost = true;
    p.state.pos -= p.state.len;
  },
  hyphen: (p: Parser) => {
    p.state.pos -= p.state.len;
  },
  verVersion: (p: Parser) => {
    p.state.pos -= p.state.len;
    p.state.len = 0;
  },
};

function a(test: Test | null, flags: number, to: State | null, type: TokenType | null = null, special: Special | null = null): Action {
  return { test, flags, to, type, special };
}

export const TABLE: Record<State, Action[]> = {
  Base: [
    a(T.eof, NEXT, null), a(eq('<'), PUSH, 'InTagFirst'), a(T.ignore, NEXT, 'InSpace'), a(T.asclet, NEXT, 'InAsciiWord'),
    a(T.alpha, NEXT, 'InWord'), a(T.digit, NEXT, 'InUnsignedInt'), a(eq('-'), PUSH, 'InSignedIntFirst'),
    a(eq('+'), PUSH, 'InSignedIntFirst'), a(eq('&'), PUSH, 'InXMLEntityFirst'), a(eq('~'), PUSH, 'InFileTwiddle'),
    a(eq('/'), PUSH, 'InFileFirst'), a(eq('.'), PUSH, 'InPathFirstFirst'), a(null, NEXT, 'InSpace'),
  ],
  InNumWord: [
    a(T.eof, BINGO, 'Base', 'numword'), a(T.alnum, NEXT, 'InNumWord'), a(T.special, NEXT, 'InNumWord'),
    a(eq('@'), PUSH, 'InEmail'), a(eq('/'), PUSH, 'InFileFirst'), a(eq('.'), PUSH, 'InFileNext'),
    a(eq('-'), PUSH, 'InHyphenNumWordFirst'), a(null, BINGO, 'Base', 'numword'),
  ],
  InAsciiWord: [
    a(T.eof, BINGO, 'Base', 'asciiword'), a(T.asclet, NEXT, null), a(eq('.'), PUSH, 'InHostFirstDomain'),
    a(eq('.'), PUSH, 'InFileNext'), a(eq('-'), PUSH, 'InHostFirstAN'), a(eq('-'), PUSH, 'InHyphenAsciiWordFirst'),
    a(eq('_'), PUSH, 'InHostFirstAN'), a(eq('@'), PUSH, 'InEmail'), a(eq(':'), PUSH, 'InProtocolFirst'),
    a(eq('/'), PUSH, 'InFileFirst'), a(T.digit, PUSH, 'InHost'), a(T.digit, NEXT, 'InNumWord'), a(T.alpha, NEXT, 'InWord'),
    a(T.special, NEXT, 'InWord'), a(null, BINGO, 'Base', 'asciiword'),
  ],
  InWord: [
    a(T.eof, BINGO, 'Base', 'word'), a(T.alpha, NEXT, null), a(T.special, NEXT, null), a(T.digit, NEXT, 'InNumWord'),
    a(eq('-'), PUSH, 'InHyphenWordFirst'), a(null, BINGO, 'Base', 'word'),
  ],
  InUnsignedInt: [
    a(T.eof, BINGO, 'Base', 'uint'), a(T.digit, NEXT, null), a(eq('.'), PUSH, 'InHostFirstDomain'),
    a(eq('.'), PUSH, 'InUDecimalFirst'), a(eq('e'), PUSH, 'InMantissaFirst'), a(eq('E'), PUSH, 'InMantissaFirst'),
    a(eq('-'), PUSH, 'InHostFirstAN'), a(eq('_'), PUSH, 'InHostFirstAN'), a(eq('@'), PUSH, 'InEmail'),
    a(T.asclet, PUSH, 'InHost'), a(T.alpha, NEXT, 'InNumWord'), a(T.special, NEXT, 'InNumWord'),
    a(eq('/'), PUSH, 'InFileFirst'), a(null, BINGO, 'Base', 'uint'),
  ],
  InSignedIntFirst: [a(T.eof, POP, null), a(T.digit, NEXT | CLEAR, 'InSignedInt'), a(null, POP, null)],
  InSignedInt: [
    a(T.eof, BINGO, 'Base', 'int'), a(T.digit, NEXT, null), a(eq('.'), PUSH, 'InDecimalFirst'),
    a(eq('e'), PUSH, 'InMantissaFirst'), a(eq('E'), PUSH, 'InMantissaFirst'), a(null, BINGO, 'Base', 'int'),
  ],
  InSpace: [
    a(T.eof, BINGO, 'Base', 'blank'), a(eq('<'), BINGO, 'Base', 'blank'), a(T.ignore, NEXT, null),
    a(eq('-'), BINGO, 'Base', 'blank'), a(eq('+'), BINGO, 'Base', 'blank'), a(eq('&'), BINGO, 'Base', 'blank'),
    a(eq('/'), BINGO, 'Base', 'blank'), a(T.notalnum, NEXT, 'InSpace'), a(null, BINGO, 'Base', 'blank'),
  ],
  InUDecimalFirst: [a(T.eof, POP, null), a(T.digit, CLEAR, 'InUDecimal'), a(null, POP, null)],
  InUDecimal: [
    a(T.eof, BINGO, 'Base', 'float'), a(T.digit, NEXT, 'InUDecimal'), a(eq('.'), PUSH, 'InVersionFirst'),
    a(eq('e'), PUSH, 'InMantissaFirst'), a(eq('E'), PUSH, 'InMantissaFirst'), a(null, BINGO, 'Base', 'float'),
  ],
  InDecimalFirst: [a(T.eof, POP, null), a(T.digit, CLEAR, 'InDecimal'), a(null, POP, null)],
  InDecimal: [
    a(T.eof, BINGO, 'Base', 'float'), a(T.digit, NEXT, 'InDecimal'), a(eq('.'), PUSH, 'InVerVersion'),
    a(eq('e'), PUSH, 'InMantissaFirst'), a(eq('E'), PUSH, 'InMantissaFirst'), a(null, BINGO, 'Base', 'float'),
  ],
  InVerVersion: [a(T.eof, POP, null), a(T.digit, RERUN, 'InSVerVersion', null, S.verVersion), a(null, POP, null)],
  InSVerVersion: [a(T.eof, POP, null), a(T.digit, BINGO | CLRALL, 'InUnsignedInt', 'blank'), a(null, NEXT, null)],
  InVersionFirst: [a(T.eof, POP, null), a(T.digit, CLEAR, 'InVersion'), a(null, POP, null)],
  InVersion: [
    a(T.eof, BINGO, 'Base', 'version'), a(T.digit, NEXT, 'InVersion'), a(eq('.'), PUSH, 'InVersionFirst'),
    a(null, BINGO, 'Base', 'version'),
  ],
  InMantissaFirst: [
    a(T.eof, POP, null), a(T.digit, CLEAR, 'InMantissa'), a(eq('+'), NEXT, 'InMantissaSign'),
    a(eq('-'), NEXT, 'InMantissaSign'), a(null, POP, null),
  ],
  InMantissaSign: [a(T.eof, POP, null), a(T.digit, CLEAR, 'InMantissa'), a(null, POP, null)],
  InMantissa: [a(T.eof, BINGO, 'Base', 'sfloat'), a(T.digit, NEXT, 'InMantissa'), a(null, BINGO, 'Base', 'sfloat')],
  InXMLEntityFirst: [
    a(T.eof, POP, null), a(eq('#'), NEXT, 'InXMLEntityNumFirst'), a(T.asclet, NEXT, 'InXMLEntity'),
    a(eq(':'), NEXT, 'InXMLEntity'), a(eq('_'), NEXT, 'InXMLEntity'), a(null, POP, null),
  ],
  InXMLEntity: [
    a(T.eof, POP, null), a(T.alnum, NEXT, 'InXMLEntity'), a(eq(':'), NEXT, 'InXMLEntity'), a(eq('_'), NEXT, 'InXMLEntity'),
    a(eq('.'), NEXT, 'InXMLEntity'), a(eq('-'), NEXT, 'InXMLEntity'), a(eq(';'), NEXT, 'InXMLEntityEnd'), a(null, POP, null),
  ],
  InXMLEntityNumFirst: [
    a(T.eof, POP, null), a(eq('x'), NEXT, 'InXMLEntityHexNumFirst'), a(eq('X'), NEXT, 'InXMLEntityHexNumFirst'),
    a(T.digit, NEXT, 'InXMLEntityNum'), a(null, POP, null),
  ],
  InXMLEntityHexNumFirst: [a(T.eof, POP, null), a(T.xdigit, NEXT, 'InXMLEntityHexNum'), a(null, POP, null)],
  InXMLEntityNum: [a(T.eof, POP, null), a(T.digit, NEXT, 'InXMLEntityNum'), a(eq(';'), NEXT, 'InXMLEntityEnd'), a(null, POP, null)],
  InXMLEntityHexNum: [
    a(T.eof, POP, null), a(T.xdigit, NEXT, 'InXMLEntityHexNum'), a(eq(';'), NEXT, 'InXMLEntityEnd'), a(null, POP, null),
  ],
  InXMLEntityEnd: [a(null, BINGO | CLEAR, 'Base', 'entity')],
  InTagFirst: [
    a(T.eof, POP, null), a(eq('/'), PUSH, 'InTagCloseFirst'), a(eq('!'), PUSH, 'InCommentFirst'), a(eq('?'), PUSH, 'InXMLBegin'),
    a(T.asclet, PUSH, 'InTagName'), a(eq(':'), PUSH, 'InTagName'), a(eq('_'), PUSH, 'InTagName'), a(null, POP, null),
  ],
  InXMLBegin: [a(T.eof, POP, null), a(eq('x'), NEXT, 'InTag'), a(null, POP, null)],
  InTagCloseFirst: [a(T.eof, POP, null), a(T.asclet, NEXT, 'InTagName'), a(null, POP, null)],
  InTagName: [
    a(T.eof, POP, null), a(eq('/'), NEXT, 'InTagBeginEnd'), a(eq('>'), NEXT, 'InTagEnd', null, S.tags),
    a(T.space, NEXT, 'InTag', null, S.tags), a(T.alnum, NEXT, null), a(eq(':'), NEXT, null), a(eq('_'), NEXT, null),
    a(eq('.'), NEXT, null), a(eq('-'), NEXT, null), a(null, POP, null),
  ],
  InTagBeginEnd: [a(T.eof, POP, null), a(eq('>'), NEXT, 'InTagEnd'), a(null, POP, null)],
  InTag: [
    a(T.eof, POP, null), a(eq('>'), NEXT, 'InTagEnd', null, S.tags), a(eq("'"), NEXT, 'InTagEscapeK'), a(eq('"'), NEXT, 'InTagEscapeKK'),
    a(T.asclet, NEXT, null), a(T.digit, NEXT, null), ...[...'=-_#/:.&?%~'].map((ch) => a(eq(ch), NEXT, null)),
    a(T.space, NEXT, null, null, S.tags), a(null, POP, null),
  ],
  InTagEscapeK: [a(T.eof, POP, null), a(eq('\\'), PUSH, 'InTagBackSleshed'), a(eq("'"), NEXT, 'InTag'), a(null, NEXT, 'InTagEscapeK')],
  InTagEscapeKK: [a(T.eof, POP, null), a(eq('\\'), PUSH, 'InTagBackSleshed'), a(eq('"'), NEXT, 'InTag'), a(null, NEXT, 'InTagEscapeKK')],
  InTagBackSleshed: [a(T.eof, POP, null), a(null, MERGE, null)],
  InTagEnd: [a(null, BINGO | CLRALL, 'Base', 'tag')],
  InCommentFirst: [
    a(T.eof, POP, null), a(eq('-'), NEXT, 'InCommentLast'), a(eq('D'), NEXT, 'InTag'), a(eq('d'), NEXT, 'InTag'), a(null, POP, null),
  ],
  InCommentLast: [a(T.eof, POP, null), a(eq('-'), NEXT, 'InComment'), a(null, POP, null)],
  InComment: [a(T.eof, POP, null), a(eq('-'), NEXT, 'InCloseCommentFirst'), a(null, NEXT, null)],
  InCloseCommentFirst: [a(T.eof, POP, null), a(eq('-'), NEXT, 'InCloseCommentLast'), a(null, NEXT, 'InComment')],
  InCloseCommentLast: [a(T.eof, POP, null), a(eq('-'), NEXT, null), a(eq('>'), NEXT, 'InCommentEnd'), a(null, NEXT, 'InComment')],
  InCommentEnd: [a(null, BINGO | CLRALL, 'Base', 'tag')],
  InHostFirstDomain: [a(T.eof, POP, null), a(T.asclet, NEXT, 'InHostDomainSecond'), a(T.digit, NEXT, 'InHost'), a(null, POP, null)],
  InHostDomainSecond: [
    a(T.eof, POP, null), a(T.asclet, NEXT, 'InHostDomain'), a(T.digit, PUSH, 'InHost'), a(eq('-'), PUSH, 'InHostFirstAN'),
    a(eq('_'), PUSH, 'InHostFirstAN'), a(eq('.'), PUSH, 'InHostFirstDomain'), a(eq('@'), PUSH, 'InEmail'), a(null, POP, null),
  ],
  InHostDomain: [
    a(T.eof, BINGO | CLRALL, 'Base', 'host'), a(T.asclet, NEXT, 'InHostDomain'), a(T.digit, PUSH, 'InHost'),
    a(eq(':'), PUSH, 'InPortFirst'), a(eq('-'), PUSH, 'InHostFirstAN'), a(eq('_'), PUSH, 'InHostFirstAN'),
    a(eq('.'), PUSH, 'InHostFirstDomain'), a(eq('@'), PUSH, 'InEmail'), a(T.digit, POP, null),
    a(T.stophost, BINGO | CLRALL, 'InURLPathStart', 'host'), a(eq('/'), PUSH, 'InFURL'), a(null, BINGO | CLRALL, 'Base', 'host'),
  ],
  InPortFirst: [a(T.eof, POP, null), a(T.digit, NEXT, 'InPort'), a(null, POP, null)],
  InPort: [
    a(T.eof, BINGO | CLRALL, 'Base', 'host'), a(T.digit, NEXT, 'InPort'), a(T.stophost, BINGO | CLRALL, 'InURLPathStart', 'host'),
    a(eq('/'), PUSH, 'InFURL'), a(null, BINGO | CLRALL, 'Base', 'host'),
  ],
  InHostFirstAN: [a(T.eof, POP, null), a(T.digit, NEXT, 'InHost'), a(T.asclet, NEXT, 'InHost'), a(null, POP, null)],
  InHost: [
    a(T.eof, POP, null), a(T.digit, NEXT, 'InHost'), a(T.asclet, NEXT, 'InHost'), a(eq('@'), PUSH, 'InEmail'),
    a(eq('.'), PUSH, 'InHostFirstDomain'), a(eq('-'), PUSH, 'InHostFirstAN'), a(eq('_'), PUSH, 'InHostFirstAN'), a(null, POP, null),
  ],
  InEmail: [a(T.stophost, POP, null), a(T.host, BINGO | CLRALL, 'Base', 'email'), a(null, POP, null)],
  InFileFirst: [
    a(T.eof, POP, null), a(T.asclet, NEXT, 'InFile'), a(T.digit, NEXT, 'InFile'), a(eq('.'), NEXT, 'InPathFirst'),
    a(eq('_'), NEXT, 'InFile'), a(eq('~'), PUSH, 'InFileTwiddle'), a(null, POP, null),
  ],
  InFileTwiddle: [
    a(T.eof, POP, null), a(T.asclet, NEXT, 'InFile'), a(T.digit, NEXT, 'InFile'), a(eq('_'), NEXT, 'InFile'),
    a(eq('/'), NEXT, 'InFileFirst'), a(null, POP, null),
  ],
  InPathFirst: [
    a(T.eof, POP, null), a(T.asclet, NEXT, 'InFile'), a(T.digit, NEXT, 'InFile'), a(eq('_'), NEXT, 'InFile'),
    a(eq('.'), NEXT, 'InPathSecond'), a(eq('/'), NEXT, 'InFileFirst'), a(null, POP, null),
  ],
  InPathFirstFirst: [a(T.eof, POP, null), a(eq('.'), NEXT, 'InPathSecond'), a(eq('/'), NEXT, 'InFileFirst'), a(null, POP, null)],
  InPathSecond: [
    a(T.eof, BINGO | CLEAR, 'Base', 'file'), a(eq('/'), PUSH, 'InFileFirst'), a(eq('/'), BINGO | CLEAR, 'Base', 'file'),
    a(T.space, BINGO | CLEAR, 'Base', 'file'), a(null, POP, null),
  ],
  InFile: [
    a(T.eof, BINGO, 'Base', 'file'), a(T.asclet, NEXT, 'InFile'), a(T.digit, NEXT, 'InFile'), a(eq('.'), PUSH, 'InFileNext'),
    a(eq('_'), NEXT, 'InFile'), a(eq('-'), NEXT, 'InFile'), a(eq('/'), PUSH, 'InFileFirst'), a(null, BINGO, 'Base', 'file'),
  ],
  InFileNext: [
    a(T.eof, POP, null), a(T.asclet, CLEAR, 'InFile'), a(T.digit, CLEAR, 'InFile'), a(eq('_'), CLEAR, 'InFile'), a(null, POP, null),
  ],
  InURLPathFirst: [a(T.eof, POP, null), a(T.urlchar, NEXT, 'InURLPath'), a(null, POP, null)],
  InURLPathStart: [a(null, NEXT, 'InURLPath')],
  InURLPath: [a(T.eof, BINGO, 'Base', 'url_path'), a(T.urlchar, NEXT, 'InURLPath'), a(null, BINGO, 'Base', 'url_path')],
  InFURL: [a(T.eof, POP, null), a(T.urlpath, BINGO | CLRALL, 'Base', 'url', S.furl), a(null, POP, null)],
  InProtocolFirst: [a(T.eof, POP, null), a(eq('/'), NEXT, 'InProtocolSecond'), a(null, POP, null)],
  InProtocolSecond: [a(T.eof, POP, null), a(eq('/'), NEXT, 'InProtocolEnd'), a(null, POP, null)],
  InProtocolEnd: [a(null, BINGO | CLRALL, 'Base', 'protocol')],
  InHyphenAsciiWordFirst: [
    a(T.eof, POP, null), a(T.asclet, NEXT, 'InHyphenAsciiWord'), a(T.alpha, NEXT, 'InHyphenWord'),
    a(T.digit, NEXT, 'InHyphenDigitLookahead'), a(null, POP, null),
  ],
  InHyphenAsciiWord: [
    a(T.eof, BINGO | CLRALL, 'InParseHyphen', 'asciihword', S.hyphen), a(T.asclet, NEXT, 'InHyphenAsciiWord'),
    a(T.alpha, NEXT, 'InHyphenWord'), a(T.special, NEXT, 'InHyphenWord'), a(T.digit, NEXT, 'InHyphenNumWord'),
    a(eq('-'), PUSH, 'InHyphenAsciiWordFirst'), a(null, BINGO | CLRALL, 'InParseHyphen', 'asciihword', S.hyphen),
  ],
  InHyphenWordFirst: [
    a(T.eof, POP, null), a(T.alpha, NEXT, 'InHyphenWord'), a(T.digit, NEXT, 'InHyphenDigitLookahead'), a(null, POP, null),
  ],
  InHyphenWord: [
    a(T.eof, BINGO | CLRALL, 'InParseHyphen', 'hword', S.hyphen), a(T.alpha, NEXT, 'InHyphenWord'),
    a(T.special, NEXT, 'InHyphenWord'), a(T.digit, NEXT, 'InHyphenNumWord'), a(eq('-'), PUSH, 'InHyphenWordFirst'),
    a(null, BINGO | CLRALL, 'InParseHyphen', 'hword', S.hyphen),
  ],
  InHyphenNumWordFirst: [
    a(T.eof, POP, null), a(T.alpha, NEXT, 'InHyphenNumWord'), a(T.digit, NEXT, 'InHyphenDigitLookahead'), a(null, POP, null),
  ],
  InHyphenNumWord: [
    a(T.eof, BINGO | CLRALL, 'InParseHyphen', 'numhword', S.hyphen), a(T.alnum, NEXT, 'InHyphenNumWord'),
    a(T.special, NEXT, 'InHyphenNumWord'), a(eq('-'), PUSH, 'InHyphenNumWordFirst'),
    a(null, BINGO | CLRALL, 'InParseHyphen', 'numhword', S.hyphen),
  ],
  InHyphenDigitLookahead: [
    a(T.eof, POP, null), a(T.digit, NEXT, 'InHyphenDigitLookahead'), a(T.alpha, NEXT, 'InHyphenNumWord'),
    a(T.special, NEXT, 'InHyphenNumWord'), a(null, POP, null),
  ],
  InParseHyphen: [
    a(T.eof, RERUN, 'Base'), a(T.asclet, NEXT, 'InHyphenAsciiWordPart'), a(T.alpha, NEXT, 'InHyphenWordPart'),
    a(T.digit, PUSH, 'InHyphenUnsignedInt'), a(eq('-'), PUSH, 'InParseHyphenHyphen'), a(null, RERUN, 'Base'),
  ],
  InParseHyphenHyphen: [
    a(T.eof, POP, null), a(T.alnum, BINGO | CLEAR, 'InParseHyphen', 'blank'), a(T.special, BINGO | CLEAR, 'InParseHyphen', 'blank'),
    a(null, POP, null),
  ],
  InHyphenWordPart: [
    a(T.eof, BINGO, 'Base', 'hword_part'), a(T.alpha, NEXT, 'InHyphenWordPart'), a(T.special, NEXT, 'InHyphenWordPart'),
    a(T.digit, NEXT, 'InHyphenNumWordPart'), a(null, BINGO, 'InParseHyphen', 'hword_part'),
  ],
  InHyphenAsciiWordPart: [
    a(T.eof, BINGO, 'Base', 'hword_asciipart'), a(T.asclet, NEXT, 'InHyphenAsciiWordPart'), a(T.alpha, NEXT, 'InHyphenWordPart'),
    a(T.special, NEXT, 'InHyphenWordPart'), a(T.digit, NEXT, 'InHyphenNumWordPart'), a(null, BINGO, 'InParseHyphen', 'hword_asciipart'),
  ],
  InHyphenNumWordPart: [
    a(T.eof, BINGO, 'Base', 'hword_numpart'), a(T.alnum, NEXT, 'InHyphenNumWordPart'), a(T.special, NEXT, 'InHyphenNumWordPart'),
    a(null, BINGO, 'InParseHyphen', 'hword_numpart'),
  ],
  InHyphenUnsignedInt: [
    a(T.eof, POP, null), a(T.digit, NEXT, null), a(T.alpha, CLEAR, 'InHyphenNumWordPart'), a(T.special, CLEAR, 'InHyphenNumWordPart'),
    a(null, POP, null),
  ],
};
