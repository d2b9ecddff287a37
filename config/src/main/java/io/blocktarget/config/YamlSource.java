package io.blocktarget.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Reads one YAML file into a node tree (composed, not constructed, so every node keeps its line).
 * Every failure — I/O, bad UTF-8, YAML syntax — becomes a problem of that file.
 */
final class YamlSource {
    private YamlSource() {
    }

    /**
     * @param file the file to read
     * @return the document's root node; empty when the file is empty (only comments) or could not be read,
     *         in which case the problem has been added
     */
    static Optional<Node> read(Path file, Problems problems) {
        String text;
        try {
            byte[] bytes = Files.readAllBytes(file);
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            problems.add(0, "", "not valid UTF-8 text; allowed: a UTF-8 encoded YAML file");
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            problems.add(0, "", "cannot read the file: " + describe(e));
            return Optional.empty();
        }
        return compose(text, problems);
    }

    static Optional<Node> compose(String text, Problems problems) {
        // YAML 1.2 core schema: true/false are booleans, yes/no stay strings (no YAML 1.1 surprises).
        LoadSettings settings = LoadSettings.builder()
                .setSchema(new CoreSchema())
                .setLabel(problems.file().toString())
                .build();
        try {
            return new Compose(settings).composeString(text).filter(node -> !isNull(node));
        } catch (MarkedYamlEngineException e) {
            String context = e.getContext() == null || e.getContext().isBlank() ? "" : " (" + e.getContext() + ")";
            problems.add(line(e.getProblemMark().or(e::getContextMark)), "",
                    "invalid YAML: " + e.getProblem() + context);
        } catch (RuntimeException e) {
            problems.add(0, "", "invalid YAML: " + describe(e));
        }
        return Optional.empty();
    }

    /** 1-based line of a node, 0 when unknown. */
    static int line(Node node) {
        return line(node.getStartMark());
    }

    private static int line(Optional<Mark> mark) {
        return mark.map(m -> m.getLine() + 1).orElse(0);
    }

    static boolean isNull(Node node) {
        return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
    }

    /**
     * No value at all ({@code key:} or {@code key: ~}). A written {@code null} is a value here: it is the name of
     * the null backend, so {@code backend: null} must not read as "no backend".
     */
    static boolean isEmpty(Node node) {
        return isNull(node) && (((ScalarNode) node).getValue().isEmpty() || ((ScalarNode) node).getValue().equals("~"));
    }

    /** An exception as one line for a problem; the stack trace never reaches the user. */
    static String describe(Exception e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        String message = e.getMessage();
        String kind = e.getClass().getSimpleName();
        return message == null || message.isBlank() ? kind : kind + ": " + message;
    }
}
