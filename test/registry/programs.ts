/** The programs the fake registry serves in the registry tests. */
export const search = `input query: "What to search for"

agent searcher:
  model: sonnet
  permissions:
    read: ["*.md"]

let found = session: searcher
  prompt: "Search for {query}"

output results = found
`;

export const research = `use "@bob/search" as search

input topic: "The topic"

let r = search(query: topic)

output summary = session "Summarise {r.results}"
`;

export const news = (edition: number) => `output headline = session "Write headline number ${edition}"\n`;

export const registryPrograms = {
  "/alice/research": research,
  "/bob/search": search,
  "/carol/news": news(1),
  "/eve/binary": Buffer.from([0x73, 0x65, 0x73, 0x73, 0x69, 0x6f, 0x6e, 0x20, 0x22, 0xff, 0xfe, 0x22, 0x0a]),
  "/eve/huge": `session "${"x".repeat(1024 * 1024 + 10)}"\n`,
  "/eve/page": "<html><body>Not a program</body></html>\n",
  "/x/broken": 'use "zed/absent" as absent\n\nsession "Hi"\n',
  "/cyc/a": 'use "cyc/b" as b\n\noutput x = session "A"\n',
  "/cyc/b": 'use "cyc/a" as a\n\noutput y = session "B"\n',
};
