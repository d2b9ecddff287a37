package io.blocktarget.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The declaration of one configuration key — the one place its name, type, default, change rule, documentation and
 * example live. The tables are {@link LunKeys} ({@code luns.d/NAME.yaml}), {@link FaultKeys} (one entry of
 * {@code faults:}) and {@link ServerKeys} ({@code blocktarget.yaml}); from them come the readers' allowed keys and
 * typed getters, the writers, {@link ConfigDiff}, the JSON Schemas ({@link ConfigSchema}), the key reference
 * ({@link KeyReference}) and the CLI's key paths. Immutable: each {@code with} method returns a copy.
 *
 * <p>A key is a value ({@link Shape#VALUE}), a list of values, a section (a map of keys), a section that may also
 * be {@code true} / {@code false} ({@code export.iscsi}), or a list of sections ({@code faults}).
 *
 * @param <T> what the reader makes of a value ({@link Void} for sections)
 */
public final class Key<T> {
    /** What a key holds. */
    public enum Shape {
        VALUE, LIST, SECTION, SECTION_OR_BOOLEAN, LIST_OF_SECTIONS
    }

    /**
     * A rule between this key and a sibling, checked by the reader and stated in the schema.
     *
     * @param kind    {@code ONLY_WHEN}: the key is allowed only while the sibling has one of {@code values};
     *                {@code REQUIRED_WHEN}: required while it has one of them; {@code NEEDS}: given only together
     *                with the sibling (any value)
     * @param sibling the other key's name in the same map
     * @param values  the sibling's values, as written (empty for {@code NEEDS})
     */
    record Condition(Kind kind, String sibling, List<String> values) {
        enum Kind { ONLY_WHEN, REQUIRED_WHEN, NEEDS }

        /** "trigger: first or every" */
        String describe() {
            return sibling + (values.isEmpty() ? "" : ": " + String.join(" or ", values));
        }
    }

    private final String name;
    private final Shape shape;
    private final ValueType<T> type;
    private final List<Key<?>> children;
    private final String noun;
    private final boolean required;
    private final T defaultValue;
    private final String defaultText;
    private final ChangeRule rule;
    private final String doc;
    private final Object example;
    private final boolean singleAllowed;
    private final List<Condition> conditions;

    private Key(String name, Shape shape, ValueType<T> type, List<Key<?>> children, String noun, boolean required,
                T defaultValue, String defaultText, ChangeRule rule, String doc, Object example, boolean singleAllowed,
                List<Condition> conditions) {
        this.name = Objects.requireNonNull(name, "name");
        this.shape = shape;
        this.type = type;
        this.children = List.copyOf(children);
        this.noun = noun;
        this.required = required;
        this.defaultValue = defaultValue;
        this.defaultText = defaultText;
        this.rule = rule;
        this.doc = doc;
        this.example = example;
        this.singleAllowed = singleAllowed;
        this.conditions = List.copyOf(conditions);
    }

    /** A key with one value of {@code type}. */
    static <T> Key<T> value(String name, ValueType<T> type) {
        return new Key<>(name, Shape.VALUE, type, List.of(), type.noun(), false, null, "", null, "", null, false,
                List.of());
    }

    /** A list of values of {@code item}, at least one. */
    static <T> Key<T> list(String name, ValueType<T> item) {
        return new Key<>(name, Shape.LIST, item, List.of(), "a list", false, null, "", null, "", null, false,
                List.of());
    }

    /**
     * A map of {@code children}.
     *
     * @param noun what it is, for "X is not NOUN", e.g. "an access map"
     */
    static Key<Void> section(String name, String noun, List<Key<?>> children) {
        return new Key<>(name, Shape.SECTION, null, children, noun, false, null, "", null, "", null, false, List.of());
    }

    /** A map of {@code children}, or {@code true} (the defaults) / {@code false} (none). */
    static Key<Void> sectionOrBoolean(String name, String noun, List<Key<?>> children) {
        return new Key<>(name, Shape.SECTION_OR_BOOLEAN, null, children, noun, false, null, "", null, "", null, false,
                List.of());
    }

    /** A list of maps of {@code children}. */
    static Key<Void> listOfSections(String name, String noun, List<Key<?>> children) {
        return new Key<>(name, Shape.LIST_OF_SECTIONS, null, children, noun, false, null, "", null, "", null, false,
                List.of());
    }

    // ---- the declaration's parts

    Key<T> required() {
        return new Key<>(name, shape, type, children, noun, true, defaultValue, "required", rule, doc, example,
                singleAllowed, conditions);
    }

    /** A default the reader uses as it is; {@code text} says it in the docs. */
    Key<T> defaults(T value, String text) {
        return new Key<>(name, shape, type, children, noun, required, value, text, rule, doc, example, singleAllowed,
                conditions);
    }

    /** A default the reader derives (from other keys, the machine, the server): said in words only. */
    Key<T> defaultText(String text) {
        return new Key<>(name, shape, type, children, noun, required, defaultValue, text, rule, doc, example,
                singleAllowed, conditions);
    }

    /** How a change applies; keys without one take their section's. */
    Key<T> rule(ChangeRule value) {
        return new Key<>(name, shape, type, children, noun, required, defaultValue, defaultText, value, doc, example,
                singleAllowed, conditions);
    }

    /** One line: what the key does (the schema's description, the reference's text). */
    Key<T> doc(String text) {
        return new Key<>(name, shape, type, children, noun, required, defaultValue, defaultText, rule, text, example,
                singleAllowed, conditions);
    }

    /** A valid value as JSON / YAML has it (string, number, boolean, list, map). */
    Key<T> example(Object value) {
        return new Key<>(name, shape, type, children, noun, required, defaultValue, defaultText, rule, doc, value,
                singleAllowed, conditions);
    }

    /** A list that may also be written as its one value ({@code ops: read}). */
    Key<T> singleAllowed() {
        return new Key<>(name, shape, type, children, noun, required, defaultValue, defaultText, rule, doc, example,
                true, conditions);
    }

    Key<T> onlyWhen(Key<?> sibling, String... values) {
        return with(new Condition(Condition.Kind.ONLY_WHEN, sibling.name(), List.of(values)));
    }

    Key<T> requiredWhen(Key<?> sibling, String... values) {
        return with(new Condition(Condition.Kind.REQUIRED_WHEN, sibling.name(), List.of(values)));
    }

    Key<T> needs(Key<?> sibling) {
        return with(new Condition(Condition.Kind.NEEDS, sibling.name(), List.of()));
    }

    private Key<T> with(Condition condition) {
        List<Condition> all = new ArrayList<>(conditions);
        all.add(condition);
        return new Key<>(name, shape, type, children, noun, required, defaultValue, defaultText, rule, doc, example,
                singleAllowed, all);
    }

    // ---- reading it

    /** The key as written in its map, e.g. {@code logical-block-size}. */
    public String name() {
        return name;
    }

    public Shape shape() {
        return shape;
    }

    /** The keys of a section, in the order the user should read them (and the problems list them). */
    public List<Key<?>> children() {
        return children;
    }

    /** The names of {@link #children()}: the section's allowed keys. */
    public List<String> names() {
        return children.stream().map(Key::name).toList();
    }

    /** The child named {@code key}; empty when the section has none. */
    public Optional<Key<?>> child(String key) {
        return children.stream().filter(c -> c.name.equals(key)).findFirst();
    }

    public boolean isRequired() {
        return required;
    }

    /** The default in words ("512", "4096 when the logical block size is 512, else it"), "" when none. */
    public String defaultText() {
        return defaultText;
    }

    /** The rule of this key itself; empty: its section's ({@link #effectiveRule}). */
    public Optional<ChangeRule> rule() {
        return Optional.ofNullable(rule);
    }

    public String doc() {
        return doc;
    }

    /** A valid value (JSON form); empty for keys declared without one. */
    public Optional<Object> example() {
        return Optional.ofNullable(example);
    }

    /** What a user may write ("a power of two from 512 B to 64 KiB"); "" for sections. */
    public String allowed() {
        return type == null ? "" : type.allowed();
    }

    /** "a size", "a boolean", "an access map". */
    public String noun() {
        return noun;
    }

    ValueType<T> type() {
        return type;
    }

    /** The default the reader uses; empty when there is none or it is derived. */
    Optional<T> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    boolean isSingleAllowed() {
        return singleAllowed;
    }

    List<Condition> conditions() {
        return conditions;
    }

    /** The children that may only be given while {@code sibling} is {@code value} (e.g. the file backend's keys). */
    List<Key<?>> onlyWhen(String sibling, String value) {
        return children.stream().filter(c -> c.conditions.stream().anyMatch(k -> k.kind() == Condition.Kind.ONLY_WHEN
                && k.sibling().equals(sibling) && k.values().equals(List.of(value)))).toList();
    }

    static List<Key<?>> keys(Key<?>... keys) {
        return Arrays.asList(keys);
    }

    @Override
    public String toString() {
        return name;
    }
}
