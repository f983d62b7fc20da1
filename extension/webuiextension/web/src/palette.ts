// The colours charts give their series, in order: a pie's slices take
// them as the line charts do, so a group keeps a familiar look.
export const palette = ['#4f6df5', '#16a085', '#e67e22', '#8e44ad', '#c0392b', '#2c82c9', '#27ae60', '#d35400', '#7f8c8d', '#b7950b'];
