// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { imageElement, renderMarkdown, sanitizeHtml } from "../../src/ui/sanitize";

const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  "<script>window.__pwned=1</script>",
  '<svg onload="window.__pwned=1"><circle/></svg>',
  "[click](javascript:window.__pwned=1)",
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '<div onclick="x()" style="color:red">t</div>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<form action="javascript:1"><button>go</button></form>',
  "![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)",
  "![remote](https://example.invalid/p.png)",
  '<object data="x.swf"></object><embed src="x">',
  '<details open ontoggle="window.__pwned=1">x</details>',
  "![js](javascript:alert(1))",
  "[x](  javascript:alert(1) )",
  "<https://ok.invalid/> and <javascript:alert(1)>",
];

/** Everything dangerous that could be in a DOM tree. */
function dangers(root: ParentNode): string[] {
  const out: string[] = [];
  root.querySelectorAll("*").forEach((el) => {
    const tag = el.tagName.toLowerCase();
    if (["script", "svg", "math", "iframe", "form", "button", "object", "embed", "style", "input"].includes(tag)) out.push(tag);
    for (const a of Array.from(el.attributes)) {
      if (a.name.startsWith("on") || a.name === "style" || a.name === "srcdoc") out.push(`${tag}@${a.name}`);
      if ((a.name === "href" || a.name === "src") && !/^(https?:|mailto:|data:image\/(png|jpeg|gif|webp);base64,)/i.test(a.value)) out.push(`${tag}@${a.name}=${a.value}`);
    }
    if (tag === "img" && !/^data:image\/(png|jpeg|gif|webp);base64,/.test(el.getAttribute("src") ?? "")) out.push("img-src");
  });
  return out;
}

const render = (md: string): HTMLDivElement => {
  const div = document.createElement("div");
  div.append(renderMarkdown(md));
  return div;
};

describe("markdown is safe", () => {
  it("renders plain markdown", () => {
    expect(render("**bold** and `code`").innerHTML).toContain("<strong>bold</strong>");
  });

  it.each(PAYLOADS)("renders %s without anything active", (md) => {
    expect(dangers(render(md))).toEqual([]);
  });

  it("shows raw HTML in session text as text", () => {
    const div = render('<b onclick="x()">bold?</b>');
    expect(div.textContent).toContain('<b onclick="x()">bold?</b>');
    expect(div.querySelector("b")).toBeNull();
  });

  it("keeps allowed data images and safe links", () => {
    const png = "iVBORw0KGgo=";
    expect(render(`![ok](data:image/png;base64,${png})`).innerHTML).toContain(`src="data:image/png;base64,${png}"`);
    const a = render("[site](https://example.invalid/)").innerHTML;
    expect(a).toContain('href="https://example.invalid/"');
    expect(a).toContain('rel="noopener noreferrer nofollow"');
  });
});

describe("DOMPurify layer (for HTML that gets past marked)", () => {
  it.each(PAYLOADS)("sanitises %s", (html) => {
    const div = document.createElement("div");
    div.innerHTML = sanitizeHtml(html);
    expect(dangers(div)).toEqual([]);
  });

  it("drops event handlers but keeps text", () => {
    expect(sanitizeHtml('<p onmouseover="x()">hi</p>')).toBe("<p>hi</p>");
  });
});

describe("image blocks", () => {
  it("allows png/jpeg/gif/webp base64 only", () => {
    expect(imageElement("image/png", "iVBORw0KGgo=")?.src).toBe("data:image/png;base64,iVBORw0KGgo=");
    expect(imageElement("image/webp", "AAAA")).not.toBeNull();
    expect(imageElement("image/svg+xml", "PHN2Zz4=")).toBeNull();
    expect(imageElement("image/png", 'abc"onerror=1')).toBeNull();
    expect(imageElement("text/html", "AAAA")).toBeNull();
    expect(imageElement(null, "AAAA")).toBeNull();
  });
});
