// The XML parsing the SAML code does beside node-saml (metadata, algorithm pins, logout
// envelopes), in one place. @xmldom/xmldom is loaded without its type declarations: they (and
// node-saml's re-export of them) pull in TypeScript's DOM lib, whose RequestInit then replaces
// Node's for the whole program. The few members used are typed here instead.
import { createRequire } from 'node:module';

export interface XmlElement {
  localName: string;
  namespaceURI: string | null;
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlElement>;
  childNodes: ArrayLike<{ nodeType: number }>;
  textContent: string | null;
}
export interface XmlDocument {
  documentElement: XmlElement | null;
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlElement>;
}
type ErrorHandler = { error: (e: string) => void; fatalError: (e: string) => void };
interface XmlDom {
  DOMParser: new (options?: { errorHandler?: ErrorHandler }) => { parseFromString(xml: string, type: string): XmlDocument };
}
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as XmlDom;

const throwing: ErrorHandler = {
  error: (e) => {
    throw new Error(e);
  },
  fatalError: (e) => {
    throw new Error(e);
  },
};

/** Parses `xml`, throwing on any error xmldom reports (it would otherwise recover and answer a partial document). */
export function parseXmlStrict(xml: string): XmlDocument {
  return new DOMParser({ errorHandler: throwing }).parseFromString(xml, 'text/xml');
}

/** Parses XML node-saml has already parsed and verified: its warnings are not ours to act on. */
export function parseXmlLenient(xml: string): XmlDocument {
  return new DOMParser().parseFromString(xml, 'text/xml');
}

/** An element's child elements (text and comments skipped). */
export function childElements(element: XmlElement): XmlElement[] {
  return Array.from(element.childNodes).filter((n): n is typeof n & XmlElement => n.nodeType === 1);
}
