package io.blocktarget.testing;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaAnnotation;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The test tiers (issue 26, README "Tests") and the rule that keeps every test in the right one. A test's tier is
 * its JUnit 5 tag, on the method or its class: none = quick (a unit test), {@value #LOOPBACK}, {@value #VM},
 * {@value #STRESS}. {@code ./run-tests TIER} selects by tag (Maven profiles of the parent pom); a test with several
 * tags runs in the last of loopback, vm, stress it names, so the four tiers together run every test once.
 *
 * <p>{@link #violations} reads the compiled test classes of a module and names every test that starts what its tier
 * may not: a server (a {@code TargetServer}, the server as a process), any child process, the Linux VM, a seeded fuzz
 * run, a Jazzer {@code @FuzzTest} or a stress loop (a class named ...Stress..., ...Soak..., ...LoadIT). What a test starts is what its method —
 * through the class's lambdas and private helpers, the class's set-up (constructors, field initialisers,
 * {@code @BeforeAll} / {@code @BeforeEach}) and the test-support classes of the module it calls — calls. Each
 * module's {@code TestTiersTest} (quick) fails on a violation.
 */
public final class TestTiers {
    public static final String LOOPBACK = "loopback";
    public static final String VM = "vm";
    public static final String STRESS = "stress";

    /** What a test may start, by the least tier that allows it (any later tier allows it too). */
    enum Tier {
        QUICK, LOOPBACK, VM, STRESS;

        String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The tiers a test with {@code tags} runs in: the last tier it names, quick without one. */
        static Tier of(Set<String> tags) {
            return tags.contains(TestTiers.STRESS) ? Tier.STRESS : tags.contains(TestTiers.VM) ? Tier.VM
                    : tags.contains(TestTiers.LOOPBACK) ? Tier.LOOPBACK : Tier.QUICK;
        }
    }

    /** Calls that need a tier, by owner class: a constructor only ({@code <init>}), or any member ({@code *}). */
    private record Starter(String owner, String member, Tier tier, String what) {
        boolean matches(AccessTarget target) {
            return target.getOwner().getName().equals(owner)
                    && ("*".equals(member) || target.getName().equals(member));
        }
    }

    private static final List<Starter> STARTERS = List.of(
            new Starter("io.blocktarget.server.TargetServer", "<init>", Tier.LOOPBACK, "a TargetServer"),
            new Starter("io.blocktarget.it.ServerProcess", "*", Tier.LOOPBACK, "the server as a process"),
            new Starter("java.lang.ProcessBuilder", "start", Tier.LOOPBACK, "a child process"),
            new Starter("java.lang.ProcessBuilder", "startPipeline", Tier.LOOPBACK, "a child process"),
            new Starter("java.lang.Runtime", "exec", Tier.LOOPBACK, "a child process"),
            new Starter("io.blocktarget.it.InitiatorVm", "*", Tier.VM, "the Linux initiator VM"),
            new Starter("io.blocktarget.fuzz.SeededRun", "run", Tier.STRESS, "a seeded fuzz run"));

    /** Class names of stress loops, load and soak runs. */
    private static final java.util.regex.Pattern STRESS_NAMES =
            java.util.regex.Pattern.compile(".*(Stress|Soak).*|.*LoadIT");

    private static final Set<String> TESTABLE = Set.of("org.junit.jupiter.api.Test",
            "org.junit.jupiter.api.RepeatedTest", "org.junit.jupiter.api.TestFactory",
            "org.junit.jupiter.api.TestTemplate", "org.junit.jupiter.params.ParameterizedTest",
            "com.code_intelligence.jazzer.junit.FuzzTest");
    private static final Set<String> SET_UP = Set.of("org.junit.jupiter.api.BeforeAll",
            "org.junit.jupiter.api.BeforeEach", "org.junit.jupiter.api.AfterEach", "org.junit.jupiter.api.AfterAll");
    private static final String TAG = "org.junit.jupiter.api.Tag";
    private static final String FUZZ_TEST = "com.code_intelligence.jazzer.junit.FuzzTest";
    private static final String TAGS = "org.junit.jupiter.api.Tags";
    private static final Set<String> KNOWN_TAGS = Set.of(LOOPBACK, VM, STRESS);

    private TestTiers() {
    }

    /** The compiled test classes of the module {@code anchor} (one of its tests) belongs to. */
    public static JavaClasses testClassesOf(Class<?> anchor) {
        try {
            Path dir = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            return importing(importer -> importer.importPath(dir));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code classes} as the rule reads them (for tests of the rule). */
    public static JavaClasses classes(Class<?>... classes) {
        return importing(importer -> importer.importClasses(classes));
    }

    /**
     * Imports without following dependencies into the class path: the rule needs only the names of what the tests
     * call, and parsing every library class they reach would cost most of a minute on two cores.
     */
    private static JavaClasses importing(java.util.function.Function<ClassFileImporter, JavaClasses> how) {
        ArchConfiguration config = ArchConfiguration.get();
        boolean resolve = config.resolveMissingDependenciesFromClassPath();
        config.setResolveMissingDependenciesFromClassPath(false);
        try {
            return how.apply(new ClassFileImporter());
        } finally {
            config.setResolveMissingDependenciesFromClassPath(resolve);
        }
    }

    /** Every test of {@code tests} that lacks the tag of what it starts, or names an unknown tag; sorted. */
    public static List<String> violations(JavaClasses tests) {
        Set<String> sources = tests.stream().map(JavaClass::getName).collect(Collectors.toSet());
        Set<String> out = new TreeSet<>();
        for (JavaClass c : tests) {
            for (String tag : declaredTags(c)) {
                if (!KNOWN_TAGS.contains(tag)) {
                    out.add(c.getName() + ": unknown tag \"" + tag + "\" (tiers: " + new TreeSet<>(KNOWN_TAGS) + ")");
                }
            }
            for (JavaMethod m : c.getMethods()) {
                for (String tag : tags(m.getAnnotations())) {
                    if (!KNOWN_TAGS.contains(tag)) {
                        out.add(c.getName() + "." + m.getName() + ": unknown tag \"" + tag + "\"");
                    }
                }
            }
            if (c.isInterface() || c.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.ABSTRACT)) {
                continue; // checked where a concrete class runs them
            }
            List<JavaMethod> testMethods = c.getAllMethods().stream().filter(TestTiers::isTest).toList();
            if (testMethods.isEmpty()) {
                continue;
            }
            Set<String> classTags = inheritedTags(c);
            Map<Tier, String> setUp = starts(setUpCode(c), sources);
            for (JavaMethod m : testMethods) {
                Set<String> tags = new HashSet<>(classTags);
                tags.addAll(tags(m.getAnnotations()));
                Tier tier = Tier.of(tags);
                Map<Tier, String> needs = new java.util.EnumMap<>(setUp);
                starts(List.of(m), sources).forEach(needs::putIfAbsent);
                if (m.isAnnotatedWith(FUZZ_TEST)) {
                    needs.putIfAbsent(Tier.STRESS, "a Jazzer run (its agent instruments every class it loads; the "
                            + "quick tier replays the inputs without it)");
                }
                if (STRESS_NAMES.matcher(c.getSimpleName()).matches()) {
                    needs.putIfAbsent(Tier.STRESS, "a stress, soak or load run (by its class name)");
                }
                if (c.getSimpleName().endsWith("IT")) {
                    needs.putIfAbsent(Tier.LOOPBACK, "an end-to-end test (*IT: failsafe runs it in the loopback, "
                            + "vm or stress tier only)");
                }
                Optional<Tier> highest = needs.keySet().stream().max(Enum::compareTo);
                if (highest.isPresent() && tier.compareTo(highest.get()) < 0) {
                    Tier need = highest.get();
                    out.add(c.getName() + "." + m.getName() + " starts " + needs.get(need) + ": tag it @Tag(\""
                            + need.tag() + "\")" + (need == Tier.LOOPBACK ? " (or vm / stress)"
                            : need == Tier.VM ? " (or stress)" : "") + ", on the method or its class");
                }
            }
        }
        return List.copyOf(out);
    }

    private static boolean isTest(JavaMethod m) {
        return m.getAnnotations().stream().anyMatch(a -> TESTABLE.contains(a.getRawType().getName()));
    }

    /** Code that runs for every test of {@code c}: constructors, initialisers, lifecycle methods, up the hierarchy. */
    private static List<JavaCodeUnit> setUpCode(JavaClass c) {
        List<JavaCodeUnit> units = new ArrayList<>();
        List<JavaClass> chain = new ArrayList<>();
        chain.add(c);
        chain.addAll(c.getAllRawSuperclasses());
        chain.addAll(c.getAllRawInterfaces());
        c.getEnclosingClass().ifPresent(chain::add); // @Nested: the outer instance is set up too
        for (JavaClass k : chain) {
            units.addAll(k.getConstructors());
            k.getStaticInitializer().ifPresent(units::add);
            k.getMethods().stream()
                    .filter(m -> m.getAnnotations().stream().anyMatch(a -> SET_UP.contains(a.getRawType().getName())))
                    .forEach(units::add);
        }
        return units;
    }

    /**
     * What {@code roots} start, by tier (one example each): their calls, followed into the lambdas and methods of
     * their own class and into the code of the module's other test classes.
     */
    private static Map<Tier, String> starts(Collection<? extends JavaCodeUnit> roots, Set<String> sources) {
        Map<Tier, String> found = new java.util.EnumMap<>(Tier.class);
        Deque<JavaCodeUnit> todo = new ArrayDeque<>(roots);
        Set<JavaCodeUnit> seen = new HashSet<>(roots);
        while (!todo.isEmpty()) {
            JavaCodeUnit unit = todo.pop();
            // javac compiles a lambda of method m into lambda$m$N of the same class: its calls are m's
            for (JavaMethod m : unit.getOwner().getMethods()) {
                if (m.getName().startsWith("lambda$" + lambdaPrefix(unit) + "$") && seen.add(m)) {
                    todo.push(m);
                }
            }
            List<JavaAccess<?>> accesses = new ArrayList<>();
            accesses.addAll(unit.getCallsFromSelf());
            accesses.addAll(unit.getMethodReferencesFromSelf());
            accesses.addAll(unit.getConstructorReferencesFromSelf());
            for (JavaAccess<?> access : accesses) {
                AccessTarget target = access.getTarget();
                for (Starter s : STARTERS) {
                    if (s.matches(target)) {
                        found.putIfAbsent(s.tier(), s.what() + " (" + access.getOrigin().getOwner().getSimpleName()
                                + "." + access.getOrigin().getName() + ")");
                    }
                }
                JavaClass owner = target.getOwner();
                if (!sources.contains(owner.getName())) {
                    continue; // main code and libraries: what they do is the test's business only through starters
                }
                Set<JavaCodeUnit> next = new LinkedHashSet<>();
                if (target instanceof AccessTarget.CodeUnitAccessTarget cu) {
                    cu.resolveMember().ifPresent(next::add);
                    if (cu.resolveMember().isEmpty()) {
                        next.addAll(owner.getCodeUnits()); // inherited or unresolved: take the class whole
                    }
                }
                if (owner.isAnonymousClass() || owner.isLocalClass()) {
                    next.addAll(owner.getCodeUnits()); // its methods run when the code it is handed to calls them
                }
                owner.getStaticInitializer().ifPresent(next::add);
                for (JavaCodeUnit n : next) {
                    if (seen.add(n)) {
                        todo.push(n);
                    }
                }
            }
        }
        return found;
    }

    private static String lambdaPrefix(JavaCodeUnit unit) {
        return switch (unit.getName()) {
            case "<init>" -> "new";
            case "<clinit>" -> "static";
            default -> unit.getName();
        };
    }

    /** Tags on {@code c} and what it inherits them from (JUnit: superclasses, interfaces, enclosing classes). */
    private static Set<String> inheritedTags(JavaClass c) {
        Set<String> tags = new HashSet<>(declaredTags(c));
        c.getAllRawSuperclasses().forEach(s -> tags.addAll(declaredTags(s)));
        c.getAllRawInterfaces().forEach(i -> tags.addAll(declaredTags(i)));
        c.getEnclosingClass().ifPresent(e -> tags.addAll(inheritedTags(e)));
        return tags;
    }

    private static Set<String> declaredTags(JavaClass c) {
        return tags(c.getAnnotations());
    }

    /** @Tag, @Tags and annotations meta-annotated with them. */
    private static Set<String> tags(Collection<? extends JavaAnnotation<?>> annotations) {
        Set<String> tags = new HashSet<>();
        collectTags(annotations, tags, new HashSet<>());
        return tags;
    }

    private static void collectTags(Collection<? extends JavaAnnotation<?>> annotations, Set<String> tags,
                                    Set<String> visited) {
        for (JavaAnnotation<?> a : annotations) {
            String type = a.getRawType().getName();
            if (TAG.equals(type)) {
                a.get("value").ifPresent(v -> tags.add(v.toString()));
            } else if (TAGS.equals(type)) {
                a.get("value").ifPresent(v -> {
                    for (Object inner : (Object[]) v) {
                        ((JavaAnnotation<?>) inner).get("value").ifPresent(x -> tags.add(x.toString()));
                    }
                });
            } else if (!type.startsWith("java.") && visited.add(type)) {
                collectTags(a.getRawType().getAnnotations(), tags, visited); // a meta-annotation, e.g. @Loopback
            }
        }
    }
}
