package io.blocktarget.cli;

/** Placeholder until the CLI lands. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.out.println("blocktarget");
    }
}
