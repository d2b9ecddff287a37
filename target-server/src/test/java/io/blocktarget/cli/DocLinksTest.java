package io.blocktarget.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of README.md and docs/*.md points at a file of the repository, and a {@code #fragment} at a
 * heading of the page it names (GitHub's anchors). Links with a scheme (https:, man:, ...) are not followed.
 */
class DocLinksTest {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1", Pattern.DOTALL);
    private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?"
            + "(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    @Test
    void everyRelativeLinkOfTheReadmeAndTheDocsResolves() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(REPO.resolve("README.md")));
        try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        assertThat(pages).hasSizeGreaterThan(10);
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            List<String> links = links(Files.readString(page));
            checked += links.size();
            broken.addAll(broken(REPO, page, links, Set.of()));
        }
        assertThat(checked).isGreaterThan(50);
        assertThat(broken).isEmpty();
    }

    @Test
    void theCheckFindsMissingFilesAndAnchorsAndIgnoresCodeAndSchemes(@TempDir Path tmp) throws IOException {
        Files.createDirectories(tmp.resolve("docs"));
        Files.writeString(tmp.resolve("docs/b.md"), "# Title\n\n## NVMe/TCP TLS (`access.tls`)\n\n## Same\n\n"
                + "## Same\n\n```\n## not a heading\n```\n");
        String a = """
                # A
                [ok](docs/b.md) [ok anchor](docs/b.md#nvmetcp-tls-accesstls) [dup](docs/b.md#same-1) [self](#a)
                ![image](docs/b.md) [web](https://example.com/x.md) [man](man:blocktarget(8))
                `[in code](missing-in-span.md)`
                ```
                [in a fence](missing-in-fence.md)
                ```
                [gone](docs/missing.md) [bad anchor](docs/b.md#not-a-heading) [self bad](#nope)
                [fenced](docs/b.md#not-a-heading-either)
                [pending](docs/later.md) [escape](../../outside.md)
                """;
        Files.writeString(tmp.resolve("a.md"), a);
        List<String> links = links(a);
        assertThat(links).contains("docs/b.md", "#a", "https://example.com/x.md")
                .doesNotContain("missing-in-span.md", "missing-in-fence.md");
        assertThat(broken(tmp, tmp.resolve("a.md"), links, Set.of("docs/later.md"))).containsExactly(
                "a.md: docs/missing.md: no such file",
                "a.md: docs/b.md#not-a-heading: no heading with that anchor in docs/b.md",
                "a.md: #nope: no heading with that anchor in a.md",
                "a.md: docs/b.md#not-a-heading-either: no heading with that anchor in docs/b.md",
                "a.md: ../../outside.md: outside the repository");
    }

    @Test
    void anchorsAreGithubs() {
        assertThat(anchors("# Runtime control: API and CLI\n## How a change applies\n## Same\n## Same\n"
                + "### Make LBA 1000–1099 unreadable, watch it fail, clear it\n"))
                .containsExactly("runtime-control-api-and-cli", "how-a-change-applies", "same", "same-1",
                        "make-lba-10001099-unreadable-watch-it-fail-clear-it");
    }

    /** The link targets of a Markdown text, outside code fences and code spans. */
    static List<String> links(String markdown) {
        String text = CODE_SPAN.matcher(FENCE.matcher(markdown).replaceAll("")).replaceAll("");
        List<String> links = new ArrayList<>();
        Matcher m = LINK.matcher(text);
        while (m.find()) {
            links.add(m.group(1));
        }
        return links;
    }

    /** What is wrong with each relative link of {@code page}, as {@code PAGE: LINK: why}. */
    static List<String> broken(Path repo, Path page, List<String> links, Set<String> pending) throws IOException {
        List<String> broken = new ArrayList<>();
        String name = repo.relativize(page).toString();
        Map<Path, Set<String>> anchorsOf = new HashMap<>();
        for (String link : links) {
            if (SCHEME.matcher(link).find()) {
                continue;
            }
            int hash = link.indexOf('#');
            String file = hash < 0 ? link : link.substring(0, hash);
            Path target = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
            if (!target.startsWith(repo)) {
                broken.add(name + ": " + link + ": outside the repository");
                continue;
            }
            String relative = repo.relativize(target).toString();
            if (!Files.exists(target)) {
                if (!pending.contains(relative)) {
                    broken.add(name + ": " + link + ": no such file");
                }
                continue;
            }
            if (hash >= 0 && relative.endsWith(".md")) {
                Set<String> anchors = anchorsOf.computeIfAbsent(target, t -> {
                    try {
                        return anchors(Files.readString(t));
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                if (!anchors.contains(link.substring(hash + 1))) {
                    broken.add(name + ": " + link + ": no heading with that anchor in " + relative);
                }
            }
        }
        return broken;
    }

    /**
     * The anchors GitHub gives the headings of a page: lower case, punctuation but '-' and '_' dropped, spaces to
     * '-', a repeated one suffixed -1, -2, ...; headings inside code fences are not headings.
     */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : FENCE.matcher(markdown).replaceAll("").split("\n")) {
            Matcher m = HEADING.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String slug = m.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }
}
