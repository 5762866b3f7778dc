package org.xiaochong.pass;

/**
 * A group of duplicates a pass found, to print as an example: the kept record and the records
 * removed in its favour, with their times. Any method's pass may give them ({@code
 * MethodReport#samples}).
 */
public record SampleGroup(long keptId, long keptTime, long[] removedIds, long[] removedTimes) {}
