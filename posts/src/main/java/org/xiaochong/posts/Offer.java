package org.xiaochong.posts;

import java.time.LocalDateTime;
import java.util.List;
import org.xiaochong.posts.PostGenerator.Kind;

/**
 * The offer of one original, whose posts are its and its variants': its fields, before formatting;
 * {@code kind} is the original's (ORIGINAL or a hard negative of cluster {@code negativeOf}),
 * {@code shape} the realistic vocabulary's fields (null in the legacy one), {@code stock} the
 * quantity.
 */
record Offer(
    long cluster,
    boolean supply,
    String product,
    String region,
    String grade,
    String quality,
    int priceCents,
    String unit,
    long stock,
    int seller,
    List<String> extras,
    LocalDateTime time,
    Kind kind,
    long negativeOf,
    RealisticPosts.Shape shape) {
  Offer withPrice(int cents, LocalDateTime time) {
    return new Offer(
        cluster,
        supply,
        product,
        region,
        grade,
        quality,
        cents,
        unit,
        stock,
        seller,
        extras,
        time,
        kind,
        negativeOf,
        shape);
  }

  Offer withStock(long stock) {
    return new Offer(
        cluster,
        supply,
        product,
        region,
        grade,
        quality,
        priceCents,
        unit,
        stock,
        seller,
        extras,
        time,
        kind,
        negativeOf,
        shape);
  }

  Offer withExtras(List<String> extras) {
    return new Offer(
        cluster,
        supply,
        product,
        region,
        grade,
        quality,
        priceCents,
        unit,
        stock,
        seller,
        extras,
        time,
        kind,
        negativeOf,
        shape);
  }
}
