import { describe, expect, it } from "vitest";
import { slug } from "../src/slug";

describe("slug", () => {
  it("joins words with dashes", () => {
    expect(slug("Hello, World!")).toBe("hello-world");
  });

  it("trims separators at both ends", () => {
    expect(slug("  --Draft--  ")).toBe("draft");
  });
});
